package task

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written as a Go duration string ("90s",
// "1m30s") or a number of seconds.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration string form.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON accepts "90s" or 90.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case float64:
		// !(x >= 0) also rejects NaN; the upper bound keeps the conversion
		// to nanoseconds from overflowing into a negative value.
		if !(x >= 0) || x*float64(time.Second) >= math.MaxInt64 {
			return fmt.Errorf("duration %v: expected a non-negative number of seconds, at most %d", x, int64(math.MaxInt64/time.Second))
		}
		*d = Duration(x * float64(time.Second))
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("duration %q: expected a duration such as \"30s\" or \"2m\"", x)
		}
		if p < 0 {
			return fmt.Errorf("duration %q: expected a non-negative duration", x)
		}
		*d = Duration(p)
	default:
		return fmt.Errorf("duration %s: expected a string such as \"30s\" or a number of seconds", b)
	}
	return nil
}

// ByteSize is a size in bytes written as a number or with a unit ("512MiB", "1GiB", "1g", "100k").
type ByteSize int64

// MarshalJSON writes the number of bytes.
func (s ByteSize) MarshalJSON() ([]byte, error) { return json.Marshal(int64(s)) }

// UnmarshalJSON accepts 1073741824 or "1GiB".
func (s *ByteSize) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case float64:
		if x < 0 || x != float64(int64(x)) {
			return fmt.Errorf("size %v: expected a non-negative whole number of bytes", x)
		}
		*s = ByteSize(x)
		return nil
	case string:
		n, err := ParseByteSize(x)
		if err != nil {
			return err
		}
		*s = n
		return nil
	}
	return fmt.Errorf("size %s: expected a number of bytes or a string such as \"1GiB\"", b)
}

var units = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

// ParseByteSize parses "512MiB", "1g", "100000".
func ParseByteSize(str string) (ByteSize, error) {
	s := strings.ToLower(strings.TrimSpace(str))
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0) || f*float64(mult) > 1<<62 { // !(f >= 0) rejects NaN
		return 0, fmt.Errorf("size %q: expected a number with an optional unit such as \"512MiB\" or \"1GiB\"", str)
	}
	return ByteSize(f * float64(mult)), nil
}
