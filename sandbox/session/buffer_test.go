package session_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

func TestLockedBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "empty", want: ""},
		{name: "one write", writes: []string{"abc"}, want: "abc"},
		{name: "writes append", writes: []string{"ab", "", "cd"}, want: "abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b session.LockedBuffer
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				assert.NoError(t, err)
				assert.Equal(t, len(w), n)
			}
			assert.Equal(t, tt.want, string(b.Bytes()))
		})
	}
}

func TestLockedBufferBytesIsACopy(t *testing.T) {
	var b session.LockedBuffer
	_, _ = b.Write([]byte("abc"))
	got := b.Bytes()
	got[0] = 'x'
	assert.Equal(t, "abc", string(b.Bytes()))
}

func TestLockedBufferConcurrentWrites(t *testing.T) {
	var b session.LockedBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("x"))
			}
		}()
	}
	wg.Wait()
	assert.Len(t, b.Bytes(), 800)
}
