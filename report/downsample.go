package report

import "sort"

// point is one (x, y) sample of a per-message series.
type point struct{ X, Y float64 }

// downsample reduces pts, sorted by X, to at most max points by splitting
// the X range into max/2 buckets and keeping each bucket's lowest and highest
// Y in X order. Unlike averaging it keeps every spike, which is what a
// latency chart is for. echarts' lttb sampling thins further on screen.
func downsample(pts []point, max int) []point {
	if len(pts) <= max || max < 4 {
		return pts
	}
	buckets := max / 2
	lo, hi := pts[0].X, pts[len(pts)-1].X
	width := (hi - lo) / float64(buckets)
	if width <= 0 {
		width = 1
	}
	out := make([]point, 0, max)
	i := 0
	for b := 0; b < buckets && i < len(pts); b++ {
		limit := lo + width*float64(b+1)
		minI, maxI := i, i
		for ; i < len(pts) && (pts[i].X < limit || b == buckets-1); i++ {
			if pts[i].Y < pts[minI].Y {
				minI = i
			}
			if pts[i].Y > pts[maxI].Y {
				maxI = i
			}
		}
		if i == minI { // empty bucket
			continue
		}
		first, second := minI, maxI
		if first > second {
			first, second = second, first
		}
		out = append(out, pts[first])
		if second != first {
			out = append(out, pts[second])
		}
	}
	return out
}

// sortPoints orders pts by X.
func sortPoints(pts []point) {
	sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
}
