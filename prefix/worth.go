package prefix

import (
	"fmt"
	"time"
)

// DefaultCheapCapture is the capture cost under which every prefix is
// worth caching (see WithCheapCapture).
const DefaultCheapCapture = 2 * time.Second

// maxCosts bounds the prefixes whose live replay time is remembered.
const maxCosts = 65536

// WithCheapCapture sets the capture cost under which every prefix is
// cached (default DefaultCheapCapture). A capture scans the sandbox's
// writable filesystems twice (the baseline before step 0, the state at
// J): milliseconds on busybox, 0.3–0.7 s on Debian, seconds on a
// toolchain image (72,000 entries, over fuse-overlayfs: 4–5 s a scan
// here). On an image whose last capture or scan took longer, a prefix is
// captured only once it is known to replay live slower than that (its
// first miss replays it live and times it), so that a few cheap steps are
// not made a reset of seconds for a state no one could replay more slowly.
func WithCheapCapture(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("cheap capture %v: expected ≥ 0", d)
		}
		c.cheapCapture = d
		return nil
	}
}

// worth says whether key's prefix is worth capturing on its image: yes
// while the image's captures are cheap or unknown; else once its live
// replay is known to take at least a capture (measure: replay it live
// first, timing it). Callers hold mu.
func (c *Cache) worth(k Key) (build, measure bool, why *NotReusableError) {
	cost, ok := c.captureCost[k.Image]
	if !ok || cost <= c.cfg.cheapCapture {
		return true, false, nil
	}
	replay, ok := c.replayCost[k]
	if !ok {
		return false, true, nil
	}
	if replay >= cost {
		return true, false, nil
	}
	return false, false, &NotReusableError{Step: -1, Why: fmt.Sprintf(
		"replaying it live (%s) is cheaper than capturing its state on this image (%s)", replay.Round(time.Millisecond), cost.Round(10*time.Millisecond))}
}

// observeCapture records how long a scan or a capture took on image.
func (c *Cache) observeCapture(image string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.captureCost) > maxCosts {
		clear(c.captureCost)
	}
	c.captureCost[image] = d
}

// observeReplay records how long k's prefix took to replay live.
func (c *Cache) observeReplay(k Key, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.replayCost) > maxCosts {
		clear(c.replayCost)
	}
	c.replayCost[k] = d
}
