// Package prefix is the prefix cache of resets: the state of a sandbox
// after steps [0, j) of a reference trajectory, captured once from a
// sandbox that replayed them live and applied to fresh pooled sandboxes of
// the same task and image, which then replay [j, k) live.
//
// What a state is here: the files the prefix changed (found by comparing a
// scan of the sandbox with the template's baseline scan, by change time,
// without the engine's changes API), the files it deleted, and in session
// mode the shell's cwd, variables, functions, aliases, traps, umask and
// options. Processes cannot be carried: a prefix that leaves one running is
// not reused past that step. Nor can steps whose result depends on the
// outside world: an http step, a step marked volatile and a step whose
// output differed between verified runs end the reusable prefix (Limit).
//
// Capture and Apply run shell scripts through the sandbox's own Exec (the
// session shell where there is one: a round trip of about a millisecond),
// using tar, gzip, base64 and find from the image. An entry is verified
// when applied: the tar extraction must report nothing and the restored
// shell state must read back as captured, else the apply fails and the
// caller replays live. See docs/prefix-cache.md.
package prefix
