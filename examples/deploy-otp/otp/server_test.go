package otp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
)

func TestNewServerRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name   string
		secret string
		period time.Duration
		opts   []otp.Option
	}{
		{"empty secret", "", 30 * time.Second, nil},
		{"zero period", secret, 0, nil},
		{"sub-second period", secret, 500 * time.Millisecond, nil},
		{"fractional seconds", secret, 1500 * time.Millisecond, nil},
		{"nil clock", secret, 30 * time.Second, []otp.Option{otp.WithClock(nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := otp.NewServer(tt.secret, tt.period, tt.opts...)
			assert.ErrorIs(t, err, otp.ErrConfig)
		})
	}
}

func TestServerIssuesCurrentCode(t *testing.T) {
	const period = 30 * time.Second
	now := time.Unix(1_700_000_012, 500_000_000) // 2.5s into a window
	srv, err := otp.NewServer(secret, period, otp.WithClock(func() time.Time { return now }))
	require.NoError(t, err)

	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/otp", nil))

	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var got otp.Response
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	assert.Equal(t, otp.Code(secret, now, period), got.Code)
	// Valid until the end of the next window: 57.5s left, floored.
	assert.Equal(t, int64(57), got.ExpiresIn)
	assert.True(t, otp.Valid(secret, got.Code, now.Add(time.Duration(got.ExpiresIn)*time.Second), period))
}

func TestServerCodeChangesWithClock(t *testing.T) {
	const period = 30 * time.Second
	now := time.Unix(1_700_000_010, 0)
	srv, err := otp.NewServer(secret, period, otp.WithClock(func() time.Time { return now }))
	require.NoError(t, err)

	first := srv.Issue()
	assert.Equal(t, int64(60), first.ExpiresIn)
	now = now.Add(29 * time.Second)
	assert.Equal(t, first.Code, srv.Issue().Code, "same window, same code")
	assert.Equal(t, int64(31), srv.Issue().ExpiresIn)
	now = now.Add(time.Second)
	assert.NotEqual(t, first.Code, srv.Issue().Code, "new window, new code")
	assert.True(t, otp.Valid(secret, first.Code, now, period), "the old code survives one more window")
}

func TestServerRoutes(t *testing.T) {
	srv, err := otp.NewServer(secret, 30*time.Second)
	require.NoError(t, err)
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/otp", http.StatusOK},
		{http.MethodPost, "/otp", http.StatusMethodNotAllowed},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/otp/x", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			assert.Equal(t, tt.want, rec.Code)
		})
	}
}
