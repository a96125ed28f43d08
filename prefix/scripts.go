package prefix

// Shell scripts run in sandboxes. Helper processes run under a clean
// environment (env -i with a fixed PATH) so that what the prefix did to the
// session's PATH, functions or variables cannot change what they do; the
// state dump runs in the session shell itself (it is that shell's state)
// with builtins only.

// toolsEnv starts a helper with a clean environment.
const toolsEnv = "command env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C /bin/sh -c "

// shmDir is where transfers are staged: a tmpfs outside the scanned
// filesystems, so staging leaves no trace in the state.
const shmDir = "/dev/shm"

// procsScript lists the live processes that are not the script's own
// ancestors: "pid ppid state comm" per line. Builtins only after the
// shell starts, so the list holds no helper of its own.
const procsScript = `a=" $$ "; p=$$
while [ "$p" -gt 1 ] 2>/dev/null; do
  IFS= read -r l < /proc/$p/stat || break
  r=${l##*) }; r=${r#* }; p=${r%% *}; a="$a$p "
done
for d in /proc/[0-9]*; do
  i=${d#/proc/}
  case $a in *" $i "*) continue;; esac
  IFS= read -r l < "$d/stat" 2>/dev/null || continue
  c=${l#*(}; c=${c%)*}; r=${l##*) }; s=${r%% *}
  [ "$s" = Z ] && continue
  r=${r#* }
  printf '%s %s %s %s\n' "$i" "${r%% *}" "$s" "$c"
done`

// mountsScript prints the writable mount points to scan ("R dir") and the
// file mounts to leave out ("X file"), from the sandbox's mount table; the
// tools the cache needs that are missing ("M tool"); the shell's user,
// group and umask ("U uid gid umask"); and the clock ("T seconds").
const mountsScript = `while read -r _ m t o _; do
  case $m in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue;; esac
  case ",$o," in *,ro,*) continue;; esac
  if [ -d "$m" ]; then printf 'R %s\n' "$m"; else printf 'X %s\n' "$m"; fi
done < /proc/self/mounts
for t in tar gzip base64 find dd; do command -v $t >/dev/null 2>&1 || printf 'M %s\n' $t; done
while read -r k a _; do case $k in Uid:) u=$a;; Gid:) g=$a;; esac; done < /proc/self/status
printf 'U %s %s %s\n' "$u" "$g" "$(umask)"
printf 'T '; date +%s.%N`

// scanScript (args: the output file, then the roots) writes a gzipped
// listing of every entry under the roots (not crossing into other
// filesystems, /proc, /sys and /dev left out), one record per entry:
// GNU find "%y %m %U %G %C@ %s %p" NUL-terminated, or busybox stat
// "%f %u %g %Z %s %n" newline-terminated. The first line names the format.
// It prints the listing's size.
//
// GNU find lists a directory the shell's user cannot read and search (for
// root without CAP_DAC_READ_SEARCH, as sandboxes run: apt's 0700
// /var/cache/apt/archives/partial) with type "o" and does not enter it:
// such a directory is opaque to the cache, which refuses a prefix that
// changed it (see diffListing) instead of failing every scan of the image.
// Busybox's find cannot tell, and its error refuses the scan.
const scanScript = `o=$1; shift
if find / -maxdepth 0 -printf '' >/dev/null 2>&1; then
  { echo gnu; find "$@" -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o -type d ! \( -readable -executable \) -printf 'o %m %U %G %C@ %s %p\0' -prune -o -printf '%y %m %U %G %C@ %s %p\0'; } | gzip -1 > "$o" || exit 1
else
  { echo bb; find "$@" -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o -print0 | xargs -0 stat -c '%f %u %g %Z %s %n'; } | gzip -1 > "$o" || exit 1
fi
wc -c < "$o"`

// readChunkScript (args: file, block size, block index) prints one block
// of a file in base64.
const readChunkScript = `dd if="$1" bs="$2" skip="$3" count=1 2>/dev/null | base64`

// dumpScript prints the session shell's state in sections that start with
// "\036NAME": bash's from builtins (declare, alias, trap, set, shopt,
// umask, the directory stack below the cwd, jobs, ulimit), POSIX sh's from what it has (set, export,
// readonly, alias, trap). xtrace and verbose are off while it runs (their
// trace would be mixed into the dump) and reported as flags.
const dumpScript = `{ __rbx_o=$-; set +xv; } 2>/dev/null
if [ -n "${BASH_VERSION-}" ]; then
builtin printf '\036S\nbash\n\036V\n'; builtin declare -p
builtin printf '\036F\n'; builtin declare -f
builtin printf '\036N\n'; builtin declare -F
builtin printf '\036A\n'; builtin alias -p
builtin printf '\036T\n'; builtin trap -p
builtin printf '\036O\n'; builtin set +o; builtin shopt -p
builtin printf '\036U\n'; builtin umask
builtin printf '\036D\n%s\n' "$PWD"
builtin printf '\036X\n'; builtin printf 'dirs %s\n' "${DIRSTACK[@]:1}"; builtin jobs -p; builtin ulimit -S -a; builtin ulimit -H -a; builtin printf 'args %s\n' "$#"
builtin printf '\036Z %s\n' "$__rbx_o"
else
printf '\036S\nsh\n\036V\n'; set
printf '\036P\n'; export -p
printf '\036R\n'; readonly -p
printf '\036A\n'; alias
printf '\036T\n'; trap
printf '\036O\n'; set +o
printf '\036U\n'; umask
printf '\036D\n%s\n' "$PWD"
printf '\036X\n'; jobs -p; ulimit -a; printf 'args %s\n' "$#"
printf '\036Z %s\n' "$__rbx_o"
fi
case $__rbx_o in *v*) set -v;; esac; case $__rbx_o in *x*) set -x;; esac; unset __rbx_o`
