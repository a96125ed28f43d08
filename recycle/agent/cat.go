package agent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// The cat command serves files of a never-used container of the sandbox's
// image (the Kubernetes backend's baseline container: the host cannot read
// the image itself there) to the host restoring a recycled sandbox. Per
// request, a path (4-byte length, then the bytes), it answers the file's
// stat (CatHeader) and content, or an error; requests come until stdin
// ends.

// CatHeader is what cat says of a file before its content.
type CatHeader struct {
	// Mode is st_mode (type and permission bits).
	Mode     uint32
	UID, GID uint32
	Size     int64
}

// maxCatError bounds an error message on the wire.
const maxCatError = 4096

// serveCat answers cat requests on stdin until it ends.
func serveCat(stdin io.Reader, stdout io.Writer) error {
	for {
		var n [4]byte
		if _, err := io.ReadFull(stdin, n[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		size := binary.LittleEndian.Uint32(n[:])
		if size > 4096 {
			return fmt.Errorf("path of %d bytes", size)
		}
		p := make([]byte, size)
		if _, err := io.ReadFull(stdin, p); err != nil {
			return err
		}
		if err := catOne(p, stdout); err != nil {
			return err
		}
	}
}

// catOne answers one request; an error returned ends the stream (the
// content could not be sent whole), one about the file is answered.
func catOne(p []byte, w io.Writer) error {
	f, hdr, err := openRegular(p)
	if err != nil {
		msg := err.Error()
		if len(msg) > maxCatError {
			msg = msg[:maxCatError]
		}
		var b [5]byte
		b[0] = 1
		binary.LittleEndian.PutUint32(b[1:], uint32(len(msg)))
		_, werr := w.Write(append(b[:], msg...))
		return werr
	}
	defer f.Close()
	var b [21]byte
	binary.LittleEndian.PutUint32(b[1:], hdr.Mode)
	binary.LittleEndian.PutUint32(b[5:], hdr.UID)
	binary.LittleEndian.PutUint32(b[9:], hdr.GID)
	binary.LittleEndian.PutUint64(b[13:], uint64(hdr.Size))
	if _, err := w.Write(b[:]); err != nil {
		return err
	}
	n, err := io.Copy(w, io.LimitReader(f, hdr.Size))
	if err == nil && n != hdr.Size {
		err = fmt.Errorf("%q: read %d of %d bytes", p, n, hdr.Size)
	}
	return err
}

// openRegular opens the regular file p without following any symlink on
// its way (see openParent); one root may not read is made readable for the
// time of the open, then given its mode back.
func openRegular(p []byte) (*os.File, CatHeader, error) {
	if err := CheckPath(p); err != nil {
		return nil, CatHeader{}, err
	}
	dir, name, restore, err := openParent(p)
	if err != nil {
		return nil, CatHeader{}, err
	}
	defer unix.Close(dir)
	defer restore()
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, CatHeader{}, fmt.Errorf("%q: %w", p, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, CatHeader{}, fmt.Errorf("%q: not a regular file (mode %o)", p, st.Mode)
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EACCES) {
		if cerr := unix.Fchmodat(dir, name, st.Mode&0o7777|0o004, 0); cerr != nil {
			return nil, CatHeader{}, fmt.Errorf("%q: %w", p, errors.Join(err, cerr))
		}
		fd, err = unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if cerr := unix.Fchmodat(dir, name, st.Mode&0o7777, 0); cerr != nil && err == nil {
			unix.Close(fd)
			err = cerr
		}
	}
	if err != nil {
		return nil, CatHeader{}, fmt.Errorf("%q: %w", p, err)
	}
	return os.NewFile(uintptr(fd), string(p)), CatHeader{Mode: st.Mode, UID: st.Uid, GID: st.Gid, Size: st.Size}, nil
}

// CatClient is the host's end of a cat command's streams: one request at
// a time, each file's content read whole before the next request.
type CatClient struct {
	W io.Writer
	R io.Reader
}

// Open asks for the file at p and returns its header and a reader of
// exactly its content, which must be read to its end before the next Open.
func (c CatClient) Open(p []byte) (CatHeader, io.Reader, error) {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(p)))
	if _, err := c.W.Write(append(n[:], p...)); err != nil {
		return CatHeader{}, nil, fmt.Errorf("cat %q: %w", p, err)
	}
	var st [1]byte
	if _, err := io.ReadFull(c.R, st[:]); err != nil {
		return CatHeader{}, nil, fmt.Errorf("cat %q: %w", p, err)
	}
	if st[0] != 0 {
		if _, err := io.ReadFull(c.R, n[:]); err != nil {
			return CatHeader{}, nil, fmt.Errorf("cat %q: %w", p, err)
		}
		size := binary.LittleEndian.Uint32(n[:])
		if size > maxCatError {
			return CatHeader{}, nil, fmt.Errorf("cat %q: error of %d bytes", p, size)
		}
		msg := make([]byte, size)
		if _, err := io.ReadFull(c.R, msg); err != nil {
			return CatHeader{}, nil, fmt.Errorf("cat %q: %w", p, err)
		}
		return CatHeader{}, nil, fmt.Errorf("cat: %s", msg)
	}
	var b [20]byte
	if _, err := io.ReadFull(c.R, b[:]); err != nil {
		return CatHeader{}, nil, fmt.Errorf("cat %q: %w", p, err)
	}
	h := CatHeader{Mode: binary.LittleEndian.Uint32(b[0:]), UID: binary.LittleEndian.Uint32(b[4:]),
		GID: binary.LittleEndian.Uint32(b[8:]), Size: int64(binary.LittleEndian.Uint64(b[12:]))}
	if h.Size < 0 {
		return CatHeader{}, nil, fmt.Errorf("cat %q: size %d", p, h.Size)
	}
	return h, io.LimitReader(c.R, h.Size), nil
}

// install copies the running agent to dst (mode 0555), for an init
// container that puts it where a pod's other containers mount it from.
func install(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: rbx-agent install DEST")
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		return err
	}
	tmp := args[0] + ".tmp"
	if err := os.WriteFile(tmp, self, 0o555); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o555); err != nil {
		return err
	}
	return os.Rename(tmp, args[0])
}
