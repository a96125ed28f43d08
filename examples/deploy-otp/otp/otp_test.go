package otp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
)

const secret = "rbx-demo-secret"

func TestCodeIsHashOfWindow(t *testing.T) {
	at := time.Unix(1_700_000_015, 0) // window 56_666_667 for 30s
	sum := sha256.Sum256([]byte(secret + ":56666667"))
	assert.Equal(t, hex.EncodeToString(sum[:])[:8], otp.Code(secret, at, 30*time.Second))
	assert.Len(t, otp.Code(secret, at, 30*time.Second), otp.CodeLen)
}

func TestWindow(t *testing.T) {
	tests := []struct {
		name   string
		at     time.Time
		period time.Duration
		want   int64
	}{
		{"start of window", time.Unix(60, 0), 30 * time.Second, 2},
		{"last second of window", time.Unix(89, 999_999_999), 30 * time.Second, 2},
		{"before 1970 floors", time.Unix(-1, 0), 30 * time.Second, -1},
		{"sub-second period counts as one second", time.Unix(42, 0), time.Millisecond, 42},
		{"period truncated to whole seconds", time.Unix(42, 0), 2500 * time.Millisecond, 21},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, otp.Window(tt.at, tt.period))
		})
	}
}

func TestValid(t *testing.T) {
	const period = 30 * time.Second
	issued := time.Unix(1_700_000_010, 0) // window starts at 1_700_000_010
	code := otp.Code(secret, issued, period)
	tests := []struct {
		name string
		code string
		at   time.Time
		want bool
	}{
		{"same instant", code, issued, true},
		{"end of own window", code, issued.Add(29 * time.Second), true},
		{"next window", code, issued.Add(30 * time.Second), true},
		{"end of next window", code, issued.Add(59*time.Second + 999*time.Millisecond), true},
		{"two windows later", code, issued.Add(60 * time.Second), false},
		{"before issue window", code, issued.Add(-time.Second), false},
		{"wrong code", "00000000", issued, false},
		{"empty code", "", issued, false},
		{"other secret", otp.Code("other", issued, period), issued, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, otp.Valid(secret, tt.code, tt.at, period))
		})
	}
}

func TestExpiry(t *testing.T) {
	const period = 30 * time.Second
	issued := time.Unix(1_700_000_025, 0) // 15s into its window
	assert.Equal(t, time.Unix(1_700_000_070, 0), otp.Expiry(issued, period))
	code := otp.Code(secret, issued, period)
	assert.True(t, otp.Valid(secret, code, otp.Expiry(issued, period).Add(-time.Nanosecond), period))
	assert.False(t, otp.Valid(secret, code, otp.Expiry(issued, period), period))
}
