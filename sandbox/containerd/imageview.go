package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/leases"
	"golang.org/x/sys/unix"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// imageView is an image's root filesystem mounted read-only on the host
// for one recycle, on first use: what a recycle restores is read from
// there (the image as containerd holds it, never the sandbox's files), and
// a recycle with nothing to restore mounts nothing.
type imageView struct {
	r   *Runtime
	img client.Image

	once     sync.Once
	dir      string
	err      error
	release  chan struct{} // closed by close: the view is unmounted
	finished chan error    // withImageDir's result
}

func (r *Runtime) newImageView(img client.Image) *imageView {
	return &imageView{r: r, img: img, release: make(chan struct{}), finished: make(chan error, 1)}
}

// mount mounts the view (once) and returns its directory. The view lives
// in a goroutine running withImageDir under a lease of its own until close.
func (v *imageView) mount(ctx context.Context) (string, error) {
	v.once.Do(func() {
		ready := make(chan string, 1)
		go func() {
			ctx := v.r.ctx(context.WithoutCancel(ctx))
			lctx, done, err := v.r.cli.WithLease(ctx, leases.WithRandomID(), leases.WithExpiration(leaseTTL))
			if err != nil {
				v.finished <- fmt.Errorf("lease: %w", engineErr(err))
				return
			}
			err = v.r.withImageDir(lctx, v.img, func(dir string) error {
				ready <- dir
				<-v.release
				return nil
			})
			v.finished <- errors.Join(err, done(ctx))
		}()
		select {
		case v.dir = <-ready:
		case v.err = <-v.finished:
		}
	})
	return v.dir, v.err
}

// close unmounts the view if it was mounted. Not concurrent with mount.
func (v *imageView) close() error {
	if v.dir == "" {
		return nil // never mounted, or its mount failed and was reported
	}
	close(v.release)
	return <-v.finished
}

// open is the recycle.Opener of the view: the regular file e.Path, reached
// from the view's root without following any symlink (a listing's paths
// have none), with e's type, mode, owner and size.
func (v *imageView) open(ctx context.Context, e agent.Entry) (io.ReadCloser, error) {
	dir, err := v.mount(ctx)
	if err != nil {
		return nil, fmt.Errorf("mount image %s: %w", v.img.Name(), err)
	}
	rel := strings.TrimPrefix(string(e.Path), "/")
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", e.Path, err)
	}
	defer unix.Close(root)
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", e.Path, err)
	}
	f := os.NewFile(uintptr(fd), string(e.Path))
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("read %q: %w", e.Path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != e.Size || st.Mode&0o7777 != e.Mode || st.Uid != e.UID || st.Gid != e.GID {
		f.Close()
		return nil, fmt.Errorf("read %q: not the fresh file (mode %o size %d owner %d:%d)", e.Path, st.Mode, st.Size, st.Uid, st.Gid)
	}
	return f, nil
}
