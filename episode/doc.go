// Package episode holds what an episode's life is judged by, apart from
// how it is served: who an episode's end is charged to (Attribution, End,
// Attribute) and how a lost sandbox is rebuilt by replay (Rebuild). The
// server's three front-ends (/v1, ROCK, OpenEnv) report these values as
// they are.
package episode
