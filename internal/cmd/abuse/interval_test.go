package main

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/mailauth/mailauth/httpapi"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sortedSample returns n latencies drawn from a log-normal-like spread
// around median ms, sorted.
func sortedSample(rng *rand.Rand, n int, median float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = median * (0.5 + rng.ExpFloat64())
	}
	slices.Sort(s)
	return s
}

// TestRatioIntervalCoversTheRatio: for samples of the capacity report's
// size, the interval holds the point ratio; a siege whose every request
// took 3 times as long has an interval around 3 (not [3, 3]: the two
// are drawn again independently); the interval of a
// sample against itself holds 1; the same samples give the same interval.
func TestRatioIntervalCoversTheRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	base := sortedSample(rng, 300, 2)
	under := sortedSample(rng, 300, 3)

	lo, hi, ok := ratioInterval(base, under)
	require.True(t, ok)
	point := p99Of(under) / p99Of(base)
	assert.LessOrEqual(t, lo, point)
	assert.GreaterOrEqual(t, hi, point)
	assert.Less(t, lo, hi, "300 requests cannot pin a p99 down to one value")

	tripled := make([]float64, len(base))
	for i, v := range base {
		tripled[i] = 3 * v
	}
	lo, hi, ok = ratioInterval(base, tripled)
	require.True(t, ok)
	assert.Less(t, lo, 3.0)
	assert.Greater(t, hi, 3.0)
	t.Logf("a sample against its triple: %.2f-%.2f", lo, hi)

	lo, hi, ok = ratioInterval(base, base)
	require.True(t, ok)
	assert.LessOrEqual(t, lo, 1.0)
	assert.GreaterOrEqual(t, hi, 1.0)

	// The same seed: the same interval from the same samples.
	lo2, hi2, _ := ratioInterval(base, base)
	assert.Equal(t, []float64{lo, hi}, []float64{lo2, hi2})
}

// TestRatioIntervalConstant: samples with no spread give an interval of
// one point, their ratio.
func TestRatioIntervalConstant(t *testing.T) {
	base := slices.Repeat([]float64{2}, 300)
	under := slices.Repeat([]float64{5}, 300)
	lo, hi, ok := ratioInterval(base, under)
	require.True(t, ok)
	assert.Equal(t, 2.5, lo)
	assert.Equal(t, 2.5, hi)
}

// TestRatioIntervalEmpty: no interval without samples on both sides, or
// with a p99 of 0.
func TestRatioIntervalEmpty(t *testing.T) {
	_, _, ok := ratioInterval(nil, []float64{1})
	assert.False(t, ok)
	_, _, ok = ratioInterval([]float64{1}, nil)
	assert.False(t, ok)
	_, _, ok = ratioInterval([]float64{0, 0}, []float64{1, 1})
	assert.False(t, ok)
}

// refRatioInterval is ratioInterval as first written: each resample
// built and sorted. It draws the same indices in the same order.
func refRatioInterval(base, under []float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(src, dst []float64) float64 {
		for i := range dst {
			dst[i] = src[rng.IntN(len(src))]
		}
		slices.Sort(dst)
		return p99Of(dst)
	}
	b, u := make([]float64, len(base)), make([]float64, len(under))
	var ratios []float64
	for range bootstrapRounds {
		d := draw(base, b)
		ratios = append(ratios, draw(under, u)/d)
	}
	slices.Sort(ratios)
	return ratios[bootstrapRounds*25/1000], ratios[bootstrapRounds*975/1000-1]
}

// TestRatioIntervalMatchesResamples: the counted p99 of each draw is the
// p99 of the resample built and sorted, for samples of several sizes
// (the p99 the maximum below 100, ties, unsorted input).
func TestRatioIntervalMatchesResamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range [][2]int{{1, 1}, {2, 100}, {7, 50}, {99, 101}, {300, 300}, {300, 150}} {
		base, under := sortedSample(rng, n[0], 2), sortedSample(rng, n[1], 3)
		for i := range under {
			under[i] = float64(int(under[i])) // ties
		}
		rng.Shuffle(len(under), func(i, j int) { under[i], under[j] = under[j], under[i] })
		lo, hi, ok := ratioInterval(base, under)
		require.True(t, ok)
		sorted := slices.Sorted(slices.Values(under))
		wlo, whi := refRatioInterval(base, sorted)
		assert.Equal(t, []float64{wlo, whi}, []float64{lo, hi}, "sizes %v", n)
	}
}

// TestGoodPaceWithinContract holds each pace of the well-behaved client
// under the contract's per-source rate limit (a source's requests in any
// fixed window), with every source inside the prefix whose requests the
// lab times on the server's side. A pace over the limit would turn the
// client's own requests into 429s and count them as the attack's harm.
func TestGoodPaceWithinContract(t *testing.T) {
	for name, g := range map[string]goodLoad{"siege": siegeGood(), "capacity": capacityGood()} {
		t.Run(name, func(t *testing.T) {
			perSource := time.Duration(g.Sources) * g.Every
			inWindow := int(httpapi.DefaultRateWindow/perSource) + 1
			assert.LessOrEqual(t, inWindow, httpapi.DefaultRateLimit, "a source's requests in one window")
			for i := range g.Sources {
				assert.True(t, goodPrefix.Contains(netip.MustParseAddr(goodSource(i))), goodSource(i))
			}
		})
	}
	assert.GreaterOrEqual(t, int(time.Minute/capacityGood().Every), 2000, "requests in a minute's capacity phase")
}
