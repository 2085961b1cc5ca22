package media

import (
	"image"
	"image/color"
)

// resize returns src scaled to w×h (no larger than src) by area averaging:
// each output pixel is the mean of the source area it covers, weighted by
// how much of each source pixel falls inside, in premultiplied RGBA. It is
// the box filter that downscaling wants, run a source row at a time, so
// that its memory is a few rows however large the source is. (The kernel
// scalers of golang.org/x/image/draw keep a float64 buffer of output
// width × source height, 150 MB for a 12-megapixel photo.)
func resize(src image.Image, w, h int) *image.RGBA {
	if m, ok := src.(*image.YCbCr); ok {
		return resizeYCbCr(m, w, h)
	}
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	cols := spans(sw, w)
	fy := float32(sh) / float32(h)

	in := make([]uint8, 4*sw)   // one source row, premultiplied RGBA
	row := make([]float32, 4*w) // that row scaled horizontally
	acc := make([]float32, 4*w) // the output row being summed
	last := -1                  // the source row held in row
	for dy := 0; dy < h; dy++ {
		y0, y1 := float32(dy)*fy, float32(dy+1)*fy
		clear(acc)
		for sy := int(y0); sy < sh && float32(sy) < y1; sy++ {
			wt := (min(y1, float32(sy+1)) - max(y0, float32(sy))) / fy
			if wt <= 0 {
				continue
			}
			if sy != last {
				readRow(src, sb.Min.X, sb.Min.Y+sy, in)
				cols.apply(in, row)
				last = sy
			}
			for i, v := range row {
				acc[i] += v * wt
			}
		}
		out := dst.Pix[dy*dst.Stride : dy*dst.Stride+4*w]
		for i, v := range acc {
			out[i] = uint8(min(255, v+0.5))
		}
		// Premultiplied: no channel may exceed alpha after rounding.
		for i := 0; i < len(out); i += 4 {
			a := out[i+3]
			out[i], out[i+1], out[i+2] = min(out[i], a), min(out[i+1], a), min(out[i+2], a)
		}
	}
	return dst
}

// span is the source columns [from, from+len(weights)) one output column
// averages, with their weights.
type span struct {
	from    int
	weights []float32
}

// colSpans maps a source row onto output columns.
type colSpans []span

// spans returns the area-averaging spans of n source columns onto m.
func spans(n, m int) colSpans {
	f := float32(n) / float32(m)
	out := make(colSpans, m)
	for d := range out {
		x0, x1 := float32(d)*f, float32(d+1)*f
		s := span{from: int(x0)}
		for x := int(x0); x < n && float32(x) < x1; x++ {
			wt := (min(x1, float32(x+1)) - max(x0, float32(x))) / f
			s.weights = append(s.weights, wt)
		}
		out[d] = s
	}
	return out
}

// apply scales one row of premultiplied RGBA bytes into out.
func (c colSpans) apply(in []uint8, out []float32) {
	for d, s := range c {
		var r, g, b, a float32
		p := in[4*s.from:]
		for i, wt := range s.weights {
			q := p[4*i : 4*i+4 : 4*i+4]
			r += float32(q[0]) * wt
			g += float32(q[1]) * wt
			b += float32(q[2]) * wt
			a += float32(q[3]) * wt
		}
		o := out[4*d : 4*d+4 : 4*d+4]
		o[0], o[1], o[2], o[3] = r, g, b, a
	}
}

// readRow writes the pixels of src's row y, from column x0 on, into out as
// premultiplied 8-bit RGBA: directly for the types the decoders return,
// through At for any other.
func readRow(src image.Image, x0, y int, out []uint8) {
	n := len(out) / 4
	switch m := src.(type) {
	case *image.RGBA:
		copy(out, m.Pix[m.PixOffset(x0, y):])
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := 0; i < 4*n; i += 4 {
			premultiply(out[i:i+4:i+4], p[i], p[i+1], p[i+2], p[i+3])
		}
	case *image.Gray:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := range n {
			v := p[i]
			out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = v, v, v, 0xff
		}
	case *image.YCbCr:
		ycbcrRow(m, x0, y, n, out, nil)
	case *image.NYCbCrA:
		ycbcrRow(&m.YCbCr, x0, y, n, out, m.A[m.AOffset(x0, y):])
	case *image.Paletted:
		var pal [256][4]uint8
		for i, c := range m.Palette {
			r, g, b, a := c.RGBA()
			pal[i] = [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
		}
		p := m.Pix[m.PixOffset(x0, y):]
		for i := range n {
			copy(out[4*i:4*i+4], pal[p[i]][:])
		}
	default:
		for i := range n {
			r, g, b, a := src.At(x0+i, y).RGBA()
			out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = uint8(r>>8), uint8(g>>8), uint8(b>>8), uint8(a>>8)
		}
	}
}

// ycbcrRow converts n pixels of m's row y from column x0 on; alpha, when
// not nil, is the row's non-premultiplied alpha.
func ycbcrRow(m *image.YCbCr, x0, y, n int, out []uint8, alpha []uint8) {
	var hs, vs int
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 1
	case image.YCbCrSubsampleRatio420:
		hs, vs = 1, 1
	case image.YCbCrSubsampleRatio440:
		vs = 1
	case image.YCbCrSubsampleRatio411:
		hs = 2
	case image.YCbCrSubsampleRatio410:
		hs, vs = 2, 1
	}
	min := m.Rect.Min
	yp := m.Y[m.YOffset(x0, y):]
	crow := (y>>vs - min.Y>>vs) * m.CStride
	cb, cr := m.Cb[crow:], m.Cr[crow:]
	for i := range n {
		c := (x0+i)>>hs - min.X>>hs
		r, g, b := color.YCbCrToRGB(yp[i], cb[c], cr[c])
		if alpha == nil {
			out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = r, g, b, 0xff
		} else {
			premultiply(out[4*i:4*i+4:4*i+4], r, g, b, alpha[i])
		}
	}
}

// premultiply writes a non-premultiplied colour into o premultiplied.
func premultiply(o []uint8, r, g, b, a uint8) {
	switch a {
	case 0xff:
		o[0], o[1], o[2], o[3] = r, g, b, a
	case 0:
		o[0], o[1], o[2], o[3] = 0, 0, 0, 0
	default:
		o[0] = uint8((uint32(r)*uint32(a) + 127) / 255)
		o[1] = uint8((uint32(g)*uint32(a) + 127) / 255)
		o[2] = uint8((uint32(b)*uint32(a) + 127) / 255)
		o[3] = a
	}
}

// resizeYCbCr scales a JPEG's or WebP's planes each on its own (the
// chroma planes from their own, subsampled size) and converts to RGB only
// at the output size: averaging commutes with the conversion, which is
// linear, and a 12-megapixel photo is then converted for 1.8 megapixels.
func resizeYCbCr(m *image.YCbCr, w, h int) *image.RGBA {
	r := m.Rect
	cw, ch := chromaSize(m)
	co := m.COffset(r.Min.X, r.Min.Y)
	luma := func() []uint8 {
		return resizePlane(m.Y[m.YOffset(r.Min.X, r.Min.Y):], m.YStride, r.Dx(), r.Dy(), w, h)
	}
	var yp, cb, cr []uint8
	if Slots() < 2 {
		// One processor: a second goroutine would only share it.
		yp = luma()
		cb = resizePlane(m.Cb[co:], m.CStride, cw, ch, w, h)
		cr = resizePlane(m.Cr[co:], m.CStride, cw, ch, w, h)
	} else {
		// The luma plane beside the two chroma planes: on two
		// processors the planes take half the time.
		var failed any // a panic of the luma goroutine, raised again here
		done := make(chan struct{})
		go func() {
			defer func() { failed = recover(); close(done) }()
			yp = luma()
		}()
		cb = resizePlane(m.Cb[co:], m.CStride, cw, ch, w, h)
		cr = resizePlane(m.Cr[co:], m.CStride, cw, ch, w, h)
		<-done
		if failed != nil {
			panic(failed)
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range yp {
		r, g, b := color.YCbCrToRGB(yp[i], cb[i], cr[i])
		p := dst.Pix[4*i : 4*i+4 : 4*i+4]
		p[0], p[1], p[2], p[3] = r, g, b, 0xff
	}
	return dst
}

// chromaSize is the size of m's chroma planes.
func chromaSize(m *image.YCbCr) (int, int) {
	r := m.Rect
	x0, x1, y0, y1 := r.Min.X, r.Max.X, r.Min.Y, r.Max.Y
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		return (x1+1)/2 - x0/2, y1 - y0
	case image.YCbCrSubsampleRatio420:
		return (x1+1)/2 - x0/2, (y1+1)/2 - y0/2
	case image.YCbCrSubsampleRatio440:
		return x1 - x0, (y1+1)/2 - y0/2
	case image.YCbCrSubsampleRatio411:
		return (x1+3)/4 - x0/4, y1 - y0
	case image.YCbCrSubsampleRatio410:
		return (x1+3)/4 - x0/4, (y1+1)/2 - y0/2
	}
	return x1 - x0, y1 - y0
}

// resizePlane scales one 8-bit plane of sw×sh (rows stride apart) to w×h
// by area averaging, a source row at a time.
func resizePlane(pix []uint8, stride, sw, sh, w, h int) []uint8 {
	out := make([]uint8, w*h)
	cols := spans(sw, w)
	fy := float32(sh) / float32(h)
	row := make([]float32, w)
	acc := make([]float32, w)
	last := -1
	for dy := 0; dy < h; dy++ {
		y0, y1 := float32(dy)*fy, float32(dy+1)*fy
		clear(acc)
		for sy := int(y0); sy < sh && float32(sy) < y1; sy++ {
			wt := (min(y1, float32(sy+1)) - max(y0, float32(sy))) / fy
			if wt <= 0 {
				continue
			}
			if sy != last {
				in := pix[sy*stride : sy*stride+sw]
				for d, s := range cols {
					var v float32
					p := in[s.from:]
					for i, wt := range s.weights {
						v += float32(p[i]) * wt
					}
					row[d] = v
				}
				last = sy
			}
			for i, v := range row {
				acc[i] += v * wt
			}
		}
		o := out[dy*w : dy*w+w]
		for i, v := range acc {
			o[i] = uint8(min(255, v+0.5))
		}
	}
	return out
}
