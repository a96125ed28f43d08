package local

import "sync"

// forkMu keeps this package from forking while it holds a file open for
// writing. A child forked in that window inherits the descriptor until it
// execs, and a script written just before would fail to run with ETXTBSY
// ("text file busy", exit 126) — seen with parallel replays. Writers hold
// the write lock only while their descriptor is open; forks share the read
// lock, so they do not serialise each other.
var forkMu sync.RWMutex
