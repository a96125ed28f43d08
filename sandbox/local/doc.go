// Package local is the sandbox backend for development machines and hosts
// without a container engine: every sandbox is a private temporary directory
// and every command a plain child process.
//
// It is UNISOLATED. Commands run as the same user as the orchestrator
// (Spec.User is ignored), with no resource limits but two ulimits, no
// network isolation (Spec.Network is ignored), no capability dropping, and
// they see the host filesystem, writable (Spec.ReadOnlyRoot is ignored). Use
// it only for trusted trajectories.
//
// Limits. Of Spec.Limits only FileSizeBytes and NoFile apply: the fsize and
// nofile ulimits of every shell, set with prlimit(2) before it runs a step
// (see ulimits). CPU, memory, pids and DiskBytes are ignored; DiskBound
// reports sandbox.DiskBoundFileSize.
//
// Layout. A sandbox directory <base>/<name> (base defaults to
// os.TempDir()/rbx-local) holds a metadata file, rbx-sandbox.json, and root/,
// which stands in for the container's root filesystem. The sandbox id is
// "local-<name>".
//
// Path mapping. File actions (WriteFile, ReadFile) map an absolute path /x/y
// to <dir>/root/x/y and resolve relative paths against the workdir
// (/workspace → <dir>/root/workspace). They cannot leave root/: ".." above
// it and symbolic links pointing outside it are refused with an error
// wrapping sandbox.ErrPathEscape. The workdir and ExecRequest.Cwd are mapped
// the same way. Absolute paths inside shell commands are NOT remapped: `cat
// /etc/passwd` reads the host's file. That is the price of no isolation.
//
// Environment. Commands get a minimal clean environment: PATH from the host,
// HOME=<root>/root, TMPDIR=<root>/tmp, LANG=C.UTF-8, then Spec.Env, then
// RBX_ROOT=<root> (the host path of the sandbox root, which scripts can use to
// reach "absolute" sandbox paths, and which Remove uses to find every process
// the sandbox started).
//
// Modes. Session mode keeps one shell process (bash where the host has it,
// sh otherwise) driven by package session; it runs in its own process group.
// Exec mode starts a fresh shell per command. Timed-out steps are killed by
// scanning /proc/*/environ for the step's RBX_STEP marker, so the package
// needs Linux.
package local
