package corpus

import (
	"path/filepath"
	"runtime"
	"sync"
)

// Preload loads the task files at paths that are not cached yet, on every
// core (YAML parsing dominates the start of a corpus of 10,000 tasks); the
// results, failures included, are then what Load returns. Like Load, it
// must not run concurrently with other calls on c.
func (c *Tasks) Preload(paths []string) {
	var todo []string
	for _, p := range paths {
		p = filepath.Clean(p)
		if _, ok := c.byPath[p]; !ok {
			c.byPath[p] = loadedTask{} // claimed: a duplicate path is loaded once
			todo = append(todo, p)
		}
	}
	loaded := make([]loadedTask, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := range next {
				loaded[i] = load(todo[i])
			}
		})
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, p := range todo {
		c.byPath[p] = loaded[i]
	}
}
