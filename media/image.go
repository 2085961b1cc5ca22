// Package media turns the pictures of QQ messages into images a model can
// take in: it decodes JPEG, PNG, GIF (the first frame) and WebP under a
// pixel and a time limit, scales them down, and encodes them again from
// their pixels, so that nothing but pixels leaves (no EXIF, no location).
// It also names QQ's built-in faces and finds and labels the media
// segments of a message. It knows no MCP and no SnowLuma.
package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // registers GIF with image.Decode
	"image/jpeg"
	"image/png"
	"math"
	"runtime"
	"sync"
	"time"

	_ "golang.org/x/image/webp" // registers WebP with image.Decode
)

// Limits of one image. Images from QQ users are untrusted input: a header
// is read before anything is allocated for the pixels.
const (
	// MaxPixels is the largest image decoded: more is refused as a
	// decompression bomb before its pixels are allocated.
	MaxPixels = 50_000_000
	// MaxSide is the longest side of an image handed on; larger ones are
	// scaled down.
	MaxSide = 1568
	// DefaultMaxBytes is the default limit of an encoded image handed on.
	DefaultMaxBytes = 1 << 20
	// MaxInputBytes is the largest file decoded at all.
	MaxInputBytes = 32 << 20
	// DefaultTimeout is the default time one decode and encode may take.
	DefaultTimeout = 10 * time.Second
	// minSide is the smallest longest side the size steps go down to.
	minSide = 64
)

// maxPixelsPerByte bounds what a header may claim for the bytes behind it:
// no real JPEG, PNG or GIF holds more pixels per byte of file than this
// (a JPEG needs at least a bit per 8×8 block, deflate and LZW compress at
// most about a thousand and a few thousand to one). A header claiming more
// lies, and is refused before the decoder allocates what it claims. WebP's
// lossless mode can code a plain canvas in almost no bytes, so it has only
// MaxPixels (0 here).
func maxPixelsPerByte(format string) int64 {
	switch format {
	case "jpeg":
		return 1024
	case "png":
		return 16384
	case "gif":
		return 8192
	}
	return 0
}

// ErrUnreadable is the cause of every failure to read an image: the
// bytes are not a supported image, are cut short or corrupt, claim more
// than the limits allow, or took too long to decode.
var ErrUnreadable = errors.New("unreadable image")

func unreadable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnreadable, fmt.Sprintf(format, args...))
}

// An Image is a picture made ready for a model.
type Image struct {
	// Data is the encoded image, MIMEType its type (image/jpeg or
	// image/png).
	Data     []byte
	MIMEType string
	// Format is the source's format: jpeg, png, gif or webp.
	Format string
	// Width and Height are the source's size; OutWidth and OutHeight the
	// size of Data.
	Width, Height       int
	OutWidth, OutHeight int
	// InBytes is the source's size in bytes.
	InBytes int
	// Alpha says the image has transparent pixels (and so is a PNG).
	Alpha bool
}

// A Decoder prepares images within its limits. It runs at most Slots
// decodes at once, one per processor the process runs Go code on: one that
// overran its time is waited for no longer, but still holds its place until
// the decoder returns, so that hostile images cannot pile up work, and a
// decode waiting for a place costs no memory yet.
type Decoder struct {
	maxBytes  int
	maxPixels int64 // MaxPixels; the fuzz test lowers it to stay fast
	timeout   time.Duration
	onJPEG    func(quality, bytes int) // hears each JPEG encoding made; tests count them

	mu   sync.Mutex
	busy int           // decodes running
	free chan struct{} // closed when one ends
}

// Slots is how many decodes a Decoder runs at once: one per processor the
// process runs Go code on (runtime.GOMAXPROCS(0), read when a decode
// starts), at most MaxSlots. A second decode on one processor would only
// share it and hold a second picture's pixels meanwhile; past two, more
// decodes at once multiply the pixels held (about 66 MB for a
// 12-megapixel photo) more than they shorten a call.
func Slots() int { return min(max(1, runtime.GOMAXPROCS(0)), MaxSlots) }

// MaxSlots bounds Slots.
const MaxSlots = 2

// NewDecoder returns a decoder whose encoded images are at most maxBytes
// (DefaultMaxBytes when 0) and whose work on one image takes at most
// timeout (DefaultTimeout when 0, stretched under the race detector).
func NewDecoder(maxBytes int, timeout time.Duration) *Decoder {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if timeout <= 0 {
		timeout = DefaultTimeout * raceSlowdown
	}
	return &Decoder{maxBytes: maxBytes, maxPixels: MaxPixels, timeout: timeout}
}

// MaxBytes is the limit of an encoded image.
func (d *Decoder) MaxBytes() int { return d.maxBytes }

// Prepare decodes data, scales it so that its longest side is at most
// MaxSide and its encoding at most the decoder's MaxBytes, and encodes it
// again: JPEG, or PNG when it has transparency (a PNG or GIF source is kept
// PNG when that fits). Every failure to read the image wraps
// ErrUnreadable; a cancelled ctx returns ctx's error.
func (d *Decoder) Prepare(ctx context.Context, data []byte) (*Image, error) {
	cfg, format, err := inspect(data, d.maxPixels)
	if err != nil {
		return nil, err
	}
	if err := d.acquire(ctx); err != nil {
		return nil, err
	}
	type result struct {
		img *Image
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer d.release()
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: unreadable("the %s decoder failed: %v", format, p)}
			}
		}()
		img, err := d.prepare(data, cfg, format)
		done <- result{img, err}
	}()
	timer := time.NewTimer(d.timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.img, r.err
	case <-timer.C:
		return nil, unreadable("decoding the %s image took longer than %s", format, d.timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// acquire waits for a place among the Slots decodes, or for ctx.
func (d *Decoder) acquire(ctx context.Context) error {
	for {
		d.mu.Lock()
		if d.busy < Slots() {
			d.busy++
			d.mu.Unlock()
			return nil
		}
		if d.free == nil {
			d.free = make(chan struct{})
		}
		free := d.free
		d.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives a place back and wakes the decodes waiting for one.
func (d *Decoder) release() {
	d.mu.Lock()
	d.busy--
	if d.free != nil {
		close(d.free)
		d.free = nil
	}
	d.mu.Unlock()
}

// running is how many decodes hold a place.
func (d *Decoder) running() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.busy
}

// Inspect reads an image's header only and refuses what the limits do not
// allow: an unsupported format, more than MaxPixels, or a size the bytes
// cannot hold. It allocates nothing for the pixels.
func Inspect(data []byte) (image.Config, string, error) { return inspect(data, MaxPixels) }

func inspect(data []byte, maxPixels int64) (image.Config, string, error) {
	if len(data) == 0 {
		return image.Config{}, "", unreadable("the file is empty")
	}
	if len(data) > MaxInputBytes {
		return image.Config{}, "", unreadable("the file has %d bytes, more than the %d MiB decoded", len(data), MaxInputBytes>>20)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return image.Config{}, "", unreadable("not a JPEG, PNG, GIF or WebP image (%v)", err)
	}
	switch format {
	case "jpeg", "png", "gif", "webp":
	default:
		return image.Config{}, "", unreadable("%s images are not supported", format)
	}
	w, h := int64(cfg.Width), int64(cfg.Height)
	if w <= 0 || h <= 0 {
		return image.Config{}, "", unreadable("the %s header gives a size of %d×%d", format, w, h)
	}
	if w*h > maxPixels {
		return image.Config{}, "", unreadable("the %s image is %d×%d, over %d megapixels: refused as a decompression bomb before decoding", format, w, h, maxPixels/1_000_000)
	}
	if ratio := maxPixelsPerByte(format); ratio > 0 && w*h > ratio*int64(len(data)) {
		return image.Config{}, "", unreadable("the %s header claims %d×%d pixels, more than its %d bytes can hold: refused before decoding", format, w, h, len(data))
	}
	return cfg, format, nil
}

// prepare does Prepare's work on a header Inspect accepted.
func (d *Decoder) prepare(data []byte, cfg image.Config, format string) (*Image, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, unreadable("the %s image is cut short or corrupt (%v)", format, err)
	}
	b := src.Bounds()
	if b.Empty() || !b.In(image.Rect(0, 0, cfg.Width, cfg.Height)) {
		return nil, unreadable("the %s header's size %d×%d disagrees with its pixels %v", format, cfg.Width, cfg.Height, b)
	}
	w, h := fit(b.Dx(), b.Dy(), MaxSide)
	rgba := resize(src, w, h)
	if format == "jpeg" {
		// A phone stores a photo as its sensor saw it and says in EXIF
		// how to turn it; the EXIF does not go on, so the turn is made.
		rgba = orient(rgba, exifOrientation(data))
	}
	out := &Image{Format: format, Width: cfg.Width, Height: cfg.Height, InBytes: len(data), Alpha: hasAlpha(rgba)}
	lossless := format == "png" || format == "gif"
	for {
		smallest := 0 // bytes of the smallest encoding tried at this size
		if out.Alpha || lossless {
			enc, err := encodePNG(rgba)
			if err == nil && len(enc) <= d.maxBytes {
				out.Data, out.MIMEType = enc, "image/png"
				break
			}
			smallest = len(enc)
		}
		if !out.Alpha {
			enc, fits := d.encodeJPEG(rgba)
			if fits {
				out.Data, out.MIMEType = enc, "image/jpeg"
				break
			}
			smallest = len(enc)
		}
		// Too large at every quality: fewer pixels, as many fewer as the
		// bytes say (the encoding shrinks about with the area), and at
		// least a quarter fewer on each side.
		b := rgba.Bounds()
		side := max(b.Dx(), b.Dy())
		if side <= minSide {
			return nil, fmt.Errorf("media: the image does not fit in %d bytes even at %d pixels", d.maxBytes, minSide)
		}
		next := side * 3 / 4
		if smallest > 0 {
			next = min(next, int(float64(side)*0.9*math.Sqrt(float64(d.maxBytes)/float64(smallest))))
		}
		w, h := fit(b.Dx(), b.Dy(), max(next, minSide))
		rgba = resize(rgba, w, h)
	}
	b = rgba.Bounds()
	out.OutWidth, out.OutHeight = b.Dx(), b.Dy()
	return out, nil
}

// The best and the lowest of the JPEG qualities encodeJPEG tries; a photo
// encodes about 2.2 times smaller at the lowest. hopeless is how many times
// the limit an encoding at the best may be for the qualities between to be
// tried (4 leaves room for pictures smoother than photos); past it only the
// lowest is made, whose size says how many fewer pixels the next try needs.
const (
	bestQuality   = 85
	lowestQuality = 45
	hopeless      = 4
)

// encodeJPEG encodes m at falling qualities until the encoding fits; when
// none does, it returns the last, smallest one and false.
func (d *Decoder) encodeJPEG(m *image.RGBA) ([]byte, bool) {
	qualities := [...]int{bestQuality, 72, 60, lowestQuality}
	var buf bytes.Buffer
	for i := 0; i < len(qualities); i++ {
		buf.Reset()
		err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: qualities[i]})
		if d.onJPEG != nil {
			d.onJPEG(qualities[i], buf.Len())
		}
		if err == nil && buf.Len() <= d.maxBytes {
			return bytes.Clone(buf.Bytes()), true
		}
		if i == 0 && buf.Len() > hopeless*d.maxBytes {
			i = len(qualities) - 2 // the loop's i++ makes it the lowest
		}
	}
	return buf.Bytes(), false
}

func encodePNG(m *image.RGBA) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fit returns w×h scaled so that its longest side is at most side, keeping
// the aspect ratio; a smaller image keeps its size.
func fit(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(1, (h*side+w/2)/w)
	}
	return max(1, (w*side+h/2)/h), side
}

// hasAlpha reports whether any pixel of m is not fully opaque.
func hasAlpha(m *image.RGBA) bool {
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := m.Pix[m.PixOffset(b.Min.X, y):m.PixOffset(b.Max.X, y)]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				return true
			}
		}
	}
	return false
}
