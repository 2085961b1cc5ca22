package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// samples returns the fake's media by file name, made once.
func samples(testing.TB) map[string][]byte { return sampleSet() }

var sampleSet = sync.OnceValue(func() map[string][]byte {
	out := map[string][]byte{}
	for _, m := range simulator.MediaSamples() {
		out[m.Name] = m.Data
	}
	return out
})

// checkImage decodes img.Data again and checks it against the limits and
// what img says of itself.
func checkImage(t *testing.T, img *Image, maxBytes int) image.Image {
	t.Helper()
	if len(img.Data) == 0 || len(img.Data) > maxBytes {
		t.Fatalf("encoded image has %d bytes, limit %d", len(img.Data), maxBytes)
	}
	m, format, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("the prepared image does not decode: %v", err)
	}
	if want := "image/" + format; want != img.MIMEType {
		t.Errorf("MIMEType %s, but the data is %s", img.MIMEType, format)
	}
	b := m.Bounds()
	if b.Dx() != img.OutWidth || b.Dy() != img.OutHeight || max(b.Dx(), b.Dy()) > MaxSide {
		t.Errorf("decoded %v, said %d×%d, longest side limit %d", b, img.OutWidth, img.OutHeight, MaxSide)
	}
	return m
}

func TestPrepareFormats(t *testing.T) {
	t.Parallel()
	s := samples(t)
	d := NewDecoder(0, 0)
	for _, tc := range []struct {
		name, format, mime string
		w, h, outW, outH   int
	}{
		{"IMG_2048.jpg", "jpeg", "image/jpeg", 320, 240, 320, 240},
		{"sticker.png", "png", "image/png", 64, 64, 64, 64},
		{"dance.gif", "gif", "image/png", 40, 30, 40, 30},
		{"cat.webp", "webp", "image/png", 48, 32, 48, 32},
		{"panorama.jpg", "jpeg", "image/jpeg", 2400, 1600, 1568, 1045},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			img, err := d.Prepare(context.Background(), s[tc.name])
			if err != nil {
				t.Fatal(err)
			}
			checkImage(t, img, DefaultMaxBytes)
			if img.Format != tc.format || img.MIMEType != tc.mime || img.Width != tc.w || img.Height != tc.h ||
				img.OutWidth != tc.outW || img.OutHeight != tc.outH || img.InBytes != len(s[tc.name]) {
				t.Errorf("got %s→%s %d×%d→%d×%d (%d bytes in), want %s→%s %d×%d→%d×%d", img.Format, img.MIMEType,
					img.Width, img.Height, img.OutWidth, img.OutHeight, img.InBytes, tc.format, tc.mime, tc.w, tc.h, tc.outW, tc.outH)
			}
		})
	}
}

// TestPrepareKeepsPixels: a scaled-down image still shows the source's
// colours where they were (the transparent corner of the sticker stays
// transparent, its disc opaque).
func TestPrepareKeepsPixels(t *testing.T) {
	t.Parallel()
	img, err := NewDecoder(0, 0).Prepare(context.Background(), samples(t)["sticker.png"])
	if err != nil {
		t.Fatal(err)
	}
	m := checkImage(t, img, DefaultMaxBytes)
	if !img.Alpha {
		t.Error("the sticker's transparency was lost")
	}
	if _, _, _, a := m.At(1, 1).RGBA(); a != 0 {
		t.Errorf("corner alpha %d, want 0", a)
	}
	if r, _, _, a := m.At(32, 32).RGBA(); a != 0xffff || r>>8 != 250 {
		t.Errorf("centre r=%d a=%d, want 250 and opaque", r>>8, a)
	}
}

func TestPrepareDropsExif(t *testing.T) {
	t.Parallel()
	src := samples(t)["IMG_2048.jpg"]
	if !bytes.Contains(src, []byte(simulator.ExifMarker)) || !bytes.Contains(src, []byte("Exif\x00\x00")) {
		t.Fatal("the sample carries no EXIF to drop")
	}
	img, err := NewDecoder(0, 0).Prepare(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(img.Data, []byte("Exif")) || bytes.Contains(img.Data, []byte(simulator.ExifMarker)) || bytes.Contains(img.Data, []byte{0xff, 0xe1}) {
		t.Error("EXIF survived the re-encoding")
	}
}

// TestPrepareStepsDown: under a small byte limit the quality and then the
// size come down until the image fits, and at a size whose best-quality
// JPEG is over hopeless times the limit only the lowest quality is tried
// next.
func TestPrepareStepsDown(t *testing.T) {
	t.Parallel()
	const limit = 6 << 10
	d := NewDecoder(limit, 0)
	var tried [][2]int // quality, bytes
	d.onJPEG = func(q, n int) { tried = append(tried, [2]int{q, n}) }
	img, err := d.Prepare(context.Background(), samples(t)["panorama.jpg"])
	if err != nil {
		t.Fatal(err)
	}
	checkImage(t, img, limit)
	if img.OutWidth >= 1568 {
		t.Errorf("fits %d bytes at %d×%d: the size never came down", limit, img.OutWidth, img.OutHeight)
	}
	skipped := 0
	for i, tr := range tried {
		if tr[0] != bestQuality || tr[1] <= hopeless*limit {
			continue
		}
		skipped++
		if i+1 >= len(tried) || tried[i+1][0] != lowestQuality {
			t.Errorf("after %d bytes at quality %d (limit %d), tried %v", tr[1], tr[0], limit, tried[i+1:])
		}
	}
	if skipped == 0 {
		t.Errorf("no size was hopeless at the first quality: %v", tried)
	}
	if last := tried[len(tried)-1]; last[1] > limit {
		t.Errorf("the last encoding, %v, is over the limit", last)
	}
}

func TestPrepareRefuses(t *testing.T) {
	t.Parallel()
	s := samples(t)
	d := NewDecoder(0, 0)
	for name, want := range map[string]string{
		"cut.jpg":                              "cut short or corrupt",
		"bomb.png":                             "decompression bomb",
		"liar.jpg":                             "more than its",
		"7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C.amr": "not a JPEG, PNG, GIF or WebP",
	} {
		img, err := d.Prepare(context.Background(), s[name])
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, %v; want unreadable, %q", name, img, err, want)
		}
	}
	if _, err := d.Prepare(context.Background(), nil); !errors.Is(err, ErrUnreadable) {
		t.Errorf("empty: %v", err)
	}
}

// TestPrepareTimeLimit: a decode that takes longer than the limit is
// unreadable, and the decoder still serves the next image.
func TestPrepareTimeLimit(t *testing.T) {
	t.Parallel()
	s := samples(t)
	d := NewDecoder(0, time.Nanosecond)
	if _, err := d.Prepare(context.Background(), s["panorama.jpg"]); !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("got %v, want the time limit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewDecoder(0, 0).Prepare(ctx, s["panorama.jpg"]); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzPrepare: any bytes give a valid image within the limits or a clear
// failure; never a panic. The pixel limit is lowered so that one run stays
// fast.
func FuzzPrepare(f *testing.F) {
	for name, data := range samples(f) {
		if name != "panorama.jpg" && name != "bomb.png" {
			f.Add(data)
		}
	}
	d := NewDecoder(64<<10, 0)
	d.maxPixels = 1 << 18
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := d.Prepare(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrUnreadable) && !strings.Contains(err.Error(), "does not fit") {
				t.Fatalf("unexpected failure: %v", err)
			}
			return
		}
		checkImage(t, img, 64<<10)
	})
}

// BenchmarkPrepare12MP measures serving a 12-megapixel photo: decode,
// scale to 1568 px, encode within 1 MiB (docs/performance.md). B/op, every
// byte allocated with none freed, bounds the heap one image adds; cpu-ms/op
// is the CPU time it takes, which on a busy machine says more than the
// wall time ns/op.
func BenchmarkPrepare12MP(b *testing.B) {
	data := simulator.SamplePhoto(4000, 3000)
	d := NewDecoder(0, time.Minute)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start, ok := cpuTime()
	for b.Loop() {
		if _, err := d.Prepare(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
	if end, _ := cpuTime(); ok {
		b.ReportMetric(float64((end-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

func TestVoiceSeconds(t *testing.T) {
	t.Parallel()
	silk := []byte("\x02#!SILK_V3")
	for range 100 {
		silk = append(silk, 3, 0, 1, 2, 3)
	}
	silk = append(silk, 0xff, 0xff)
	amr := samples(t)["7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C.amr"]
	for _, tc := range []struct {
		name string
		data []byte
		want float64
		ok   bool
	}{
		{"silk", silk, 2, true},
		{"amr", amr, 3, true},
		{"silk cut", silk[:len(silk)-5], 0, false},
		{"mp3", []byte("ID3\x03"), 0, false},
		{"empty silk", []byte("#!SILK_V3"), 0, false},
	} {
		if got, ok := VoiceSeconds(tc.data); ok != tc.ok || (ok && (got < tc.want-0.001 || got > tc.want+0.001)) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// withOrientation is jpg with an EXIF segment giving orientation o, big-
// or little-endian.
func withOrientation(jpg []byte, o uint16, order binary.AppendByteOrder) []byte {
	tiff := []byte("II*\x00")
	if order == binary.BigEndian {
		tiff = []byte("MM\x00*")
	}
	tiff = order.AppendUint32(tiff, 8)
	tiff = order.AppendUint16(tiff, 1)
	tiff = order.AppendUint16(tiff, 0x0112)
	tiff = order.AppendUint16(tiff, 3)
	tiff = order.AppendUint32(tiff, 1)
	tiff = order.AppendUint16(tiff, o)
	tiff = append(tiff, 0, 0, 0, 0, 0, 0)
	body := append([]byte("Exif\x00\x00"), tiff...)
	seg := binary.BigEndian.AppendUint16([]byte{0xff, 0xe1}, uint16(len(body)+2))
	return append(append(append([]byte{}, jpg[:2]...), append(seg, body...)...), jpg[2:]...)
}

// TestPrepareTurnsUpright: a photo stored sideways with an EXIF
// orientation comes out upright, though the EXIF itself does not.
func TestPrepareTurnsUpright(t *testing.T) {
	t.Parallel()
	m := image.NewRGBA(image.Rect(0, 0, 40, 20)) // left red, right blue
	for y := range 20 {
		for x := range 40 {
			c := color.RGBA{220, 0, 0, 255}
			if x >= 20 {
				c = color.RGBA{0, 0, 220, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95})
	red := func(c color.Color) bool { r, _, b, _ := c.RGBA(); return r > b }
	for _, tc := range []struct {
		o      uint16
		order  binary.AppendByteOrder
		w, h   int
		redAt  image.Point // where the stored left half is seen
		blueAt image.Point
	}{
		{1, binary.LittleEndian, 40, 20, image.Pt(5, 10), image.Pt(35, 10)},
		{3, binary.BigEndian, 40, 20, image.Pt(35, 10), image.Pt(5, 10)},
		{6, binary.LittleEndian, 20, 40, image.Pt(10, 5), image.Pt(10, 35)},
		{8, binary.BigEndian, 20, 40, image.Pt(10, 35), image.Pt(10, 5)},
	} {
		img, err := NewDecoder(0, 0).Prepare(context.Background(), withOrientation(buf.Bytes(), tc.o, tc.order))
		if err != nil {
			t.Fatal(err)
		}
		out := checkImage(t, img, DefaultMaxBytes)
		if img.OutWidth != tc.w || img.OutHeight != tc.h || !red(out.At(tc.redAt.X, tc.redAt.Y)) || red(out.At(tc.blueAt.X, tc.blueAt.Y)) {
			t.Errorf("orientation %d: %d×%d, red at %v: %v", tc.o, img.OutWidth, img.OutHeight, tc.redAt, out.At(tc.redAt.X, tc.redAt.Y))
		}
		if bytes.Contains(img.Data, []byte("Exif")) {
			t.Errorf("orientation %d: the EXIF went on", tc.o)
		}
	}
}

// TestSlotsFollowProcessors holds the concurrency model of
// docs/performance.md ("Small calls under load"): a decoder runs one
// decode per processor the process runs Go code on, read when a decode
// starts, and never more than MaxSlots, so that it never holds more
// pictures' pixels than processors can work on.
func TestSlotsFollowProcessors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	d := NewDecoder(0, 0)
	for procs, slots := range map[int]int{1: 1, 2: 2, 3: 2, 8: 2} {
		runtime.GOMAXPROCS(procs)
		if Slots() != slots {
			t.Fatalf("GOMAXPROCS %d: Slots() = %d, want %d", procs, Slots(), slots)
		}
		for range slots {
			if err := d.acquire(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.acquire(cancelled); err == nil || d.running() != slots {
			t.Errorf("GOMAXPROCS %d: decode %d was let in beside %d running", procs, slots+1, d.running())
		}
		for range slots {
			d.release()
		}
	}
}
