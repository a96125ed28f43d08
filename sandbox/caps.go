package sandbox

// DefaultCaps are the capabilities every backend grants a sandbox's root:
// what typical build and test commands need; every other capability is
// dropped (Spec.CapAdd adds back what a task names). DAC_OVERRIDE is not
// among them: without it root cannot write what it does not own, which
// costs little (rbx's own file actions and its images need nothing else)
// but breaks apt-get's privilege-dropping download user; a task that
// needs it adds it back (docs/isolation.md).
var DefaultCaps = []string{"CHOWN", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID"}
