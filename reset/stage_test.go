package reset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStageBurst: the top-up waits for settle after the FIRST take of a
// burst (later takes do not push it back, so a steady stream of resets
// cannot starve the stage), and a full stage ends the burst.
func TestStageBurst(t *testing.T) {
	const settle = time.Hour // the test reads quiet, it never waits it out
	st := &stage{size: 3, times: stageTimes{recheck: time.Minute, settle: settle}}
	for i := range 3 {
		ok, full := st.put(nil)
		require.True(t, ok)
		assert.Equal(t, i == 2, full, "full after the third")
	}
	ok, _ := st.put(nil)
	assert.False(t, ok, "full")
	full, quiet := st.state()
	assert.True(t, full)
	assert.Zero(t, quiet, "no take yet")

	require.NotNil(t, st.take())
	first := st.burst
	require.False(t, first.IsZero())
	time.Sleep(2 * time.Millisecond)
	require.NotNil(t, st.take())
	assert.Equal(t, first, st.burst, "a later take does not defer the top-up")
	full, quiet = st.state()
	assert.False(t, full)
	assert.InDelta(t, float64(settle), float64(quiet), float64(time.Second))

	st.burst = time.Now().Add(-2 * settle)
	_, quiet = st.state()
	assert.Zero(t, quiet, "settled")

	ok, _ = st.put(nil)
	require.True(t, ok)
	ok, full = st.put(nil)
	require.True(t, ok)
	assert.True(t, full)
	assert.True(t, st.burst.IsZero(), "the put that fills the stage ends the burst")
	full, _ = st.state()
	assert.True(t, full)
	assert.True(t, st.burst.IsZero(), "a full stage ends the burst")
}
