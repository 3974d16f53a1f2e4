package table

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/tablekit/tablekit/internal/errmap"
)

// Key helpers from the table design guide. Keys are strings and sort as
// strings, so numbers and times must be shaped before they become keys.

// maxTicks is .NET's DateTime.MaxValue.Ticks: 100 ns intervals from
// 0001-01-01 to 9999-12-31T23:59:59.9999999. Using the same constant keeps
// keys compatible with tables written by .NET code.
const maxTicks = 3155378975999999999

// unixEpochTicks is the .NET tick count of 1970-01-01T00:00:00Z.
const unixEpochTicks = 621355968000000000

// Ticks returns t as .NET ticks (100 ns since 0001-01-01 UTC).
func Ticks(t time.Time) int64 {
	t = t.UTC()
	return t.Unix()*10_000_000 + int64(t.Nanosecond()/100) + unixEpochTicks
}

// ReverseTicks returns a 19-digit key that sorts newest first, as .NET code
// writes DateTime.MaxValue.Ticks - Ticks(t), so "the newest N" is one
// partition query with $top. Times outside 0001-9999 are clamped.
func ReverseTicks(t time.Time) string {
	ticks := Ticks(t)
	ticks = min(max(ticks, 0), maxTicks)
	return fmt.Sprintf("%019d", maxTicks-ticks)
}

// TimeFromReverseTicks is the inverse of ReverseTicks.
func TimeFromReverseTicks(key string) (time.Time, error) {
	if len(key) != 19 {
		return time.Time{}, errmap.Invalid("", "key", "reverse-ticks key must have 19 digits")
	}
	n, err := strconv.ParseInt(key, 10, 64)
	if err != nil || n < 0 || n > maxTicks {
		return time.Time{}, errmap.Invalidf("", "key", "%q is not a reverse-ticks key", key)
	}
	ticks := maxTicks - n - unixEpochTicks
	return time.Unix(ticks/10_000_000, (ticks%10_000_000)*100).UTC(), nil
}

// PadUint returns n zero-padded to width digits, so that numeric keys sort
// in numeric order. Choose width for the largest value you will store: a
// wider n is returned in full, which sorts wrongly.
func PadUint(n uint64, width int) string {
	s := strconv.FormatUint(n, 10)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// Shard returns a stable shard prefix for key, one of shards values "00",
// "01", ...: prefixing an append-only PartitionKey with it spreads writes
// over shards partitions. ShardPrefixes lists them for a parallel query.
func Shard(key string, shards int) string {
	if shards <= 1 {
		return ""
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return PadUint(uint64(h.Sum32()%uint32(shards)), digits(shards-1))
}

// ShardPrefixes lists every prefix Shard can return for shards, in order.
func ShardPrefixes(shards int) []string {
	if shards <= 1 {
		return []string{""}
	}
	out := make([]string, shards)
	w := digits(shards - 1)
	for i := range out {
		out[i] = PadUint(uint64(i), w)
	}
	return out
}

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}
