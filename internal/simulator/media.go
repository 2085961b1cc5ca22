package simulator

import (
	"bytes"
	"compress/zlib"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// The fake's media: a few real pictures (a JPEG carrying EXIF, a PNG with
// transparency, an animated GIF, a WebP, a large JPEG to scale down, a
// decompression bomb, a JPEG whose header lies and one cut short), a voice
// message with its text, a video and a file, in messages that get_msg
// returns. The pictures download through the download stream actions under
// their cached ids (and a sticker under its URL); ocr_image and
// fetch_ptt_text answer for them as SnowLuma does. They are made in Go on
// first use, except the WebP, which Go cannot encode.

// sampleWebP is a 48×32 lossy WebP with an alpha channel (222 bytes),
// made with cwebp 1.2.4 from Debian's webp package:
// cwebp -q 60 -alpha_q 100 sample.png -o sample.webp, where sample.png was
// a colour gradient with a transparent top-right corner drawn in Go.
//
//go:embed samples/sample.webp
var sampleWebP []byte

// The messages with media that get_msg answers, by message id.
const (
	// MediaPhotosMessage holds text, then five pictures: a JPEG with EXIF,
	// a PNG with transparency, an animated GIF, a WebP and a 2400×1600 JPEG.
	MediaPhotosMessage = 73001
	// MediaVoiceMessage holds one voice message, whose text
	// fetch_ptt_text gives (VoiceText).
	MediaVoiceMessage = 73002
	// MediaBrokenMessage holds a JPEG cut short, a PNG of 8000×8000
	// pixels (a decompression bomb) and a JPEG whose header claims
	// 7000×7000 pixels for a few kilobytes.
	MediaBrokenMessage = 73003
	// MediaOtherMessage holds a video, a file, a face (微笑) and a market
	// face (a sticker, downloaded by its URL).
	MediaOtherMessage = 73004
)

// VoiceText is what fetch_ptt_text answers for the voice message.
const VoiceText = "今晚八点开会，别迟到"

// ExifMarker is the camera maker written into the JPEG's EXIF: a re-encoded
// image must not carry it.
const ExifMarker = "SnowCam"

// A MediaSample is one picture or voice message of the fake.
type MediaSample struct {
	// ID is its cached media id: the segment's file, what the download
	// stream actions and ocr_image take.
	ID   string
	Name string // file_name in the download frames
	Data []byte
	// OCR is the text ocr_image finds in a picture; empty for none.
	OCR []string
}

// samplesByID are MediaSamples by id, made once per process on
// first use: they are constant data, and the large photo and the bomb take
// a while to encode (seconds under the race detector, for every fake a
// test starts). Nothing changes them.
var samplesByID = sync.OnceValue(func() map[string]MediaSample {
	m := map[string]MediaSample{}
	for _, s := range MediaSamples() {
		m[s.ID] = s
	}
	return m
})

// MediaSamples returns the fake's pictures and voice, made now: the
// pictures as a QQ user would send them.
func MediaSamples() []MediaSample {
	photo := samplePhoto(320, 240, 1, 3)
	cut := photo[:len(photo)*3/5]
	return []MediaSample{
		{ID: "A1B2C3D4E5F60718293A4B5C6D7E8F90.jpg", Name: "IMG_2048.jpg", Data: withExif(photo), OCR: []string{"周末爬山", "08:00 集合"}},
		{ID: "0F1E2D3C4B5A69788796A5B4C3D2E1F0.png", Name: "sticker.png", Data: sampleAlphaPNG()},
		{ID: "11223344556677889900AABBCCDDEEFF.gif", Name: "dance.gif", Data: sampleGIF()},
		{ID: "FFEEDDCCBBAA00998877665544332211.webp", Name: "cat.webp", Data: sampleWebP},
		{ID: "5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A.jpg", Name: "panorama.jpg", Data: samplePhoto(2400, 1600, 2, 3)},
		{ID: "DEADBEEFDEADBEEFDEADBEEFDEADBEEF.jpg", Name: "cut.jpg", Data: cut},
		{ID: "B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0.png", Name: "bomb.png", Data: sampleBomb(8000, 8000)},
		{ID: "1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A.jpg", Name: "liar.jpg", Data: lyingJPEG(photo, 7000, 7000)},
		{ID: "https://gxh.vip.qq.com/club/item/parcel/item/9a/9a2b3c4d5e6f708192a3b4c5d6e7f809/raw300.gif", Name: "raw300.gif", Data: sampleGIF()},
		{ID: "7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C.amr", Name: "7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C.amr", Data: sampleVoice()},
	}
}

// mediaFile is a sample as a downloadable file.
func (s *Server) mediaFile(id string) (File, bool) {
	m, ok := samplesByID()[id]
	return File{Name: m.Name, Data: m.Data}, ok
}

// mediaMessage returns the segments of a message with media, by id.
func mediaMessage(id int64) []segment {
	img := func(file, url string, extra map[string]any) segment {
		d := map[string]any{"url": url, "file": file, "sub_type": 0, "summary": ""}
		for k, v := range extra {
			d[k] = v
		}
		b, _ := json.Marshal(d) // a map of strings and numbers always encodes
		return segment{Type: "image", Data: b}
	}
	cdn := func(file string) string {
		return "https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=" + strings.TrimSuffix(file, ".jpg") + "&rkey=CAQSKAB"
	}
	seg := func(typ string, d map[string]any) segment {
		b, _ := json.Marshal(d)
		return segment{Type: typ, Data: b}
	}
	switch id {
	case MediaPhotosMessage:
		var out []segment
		out = append(out, textSegment("看看这些"))
		for _, f := range []string{"A1B2C3D4E5F60718293A4B5C6D7E8F90.jpg", "0F1E2D3C4B5A69788796A5B4C3D2E1F0.png",
			"11223344556677889900AABBCCDDEEFF.gif", "FFEEDDCCBBAA00998877665544332211.webp", "5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A.jpg"} {
			out = append(out, img(f, cdn(f), nil))
		}
		return out
	case MediaVoiceMessage:
		f := "7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C7C.amr"
		return []segment{seg("record", map[string]any{"file": f, "url": "https://grouptalk.c2c.qq.com/?ver=2&rkey=3062&filetype=1&voice_codec=1"})}
	case MediaBrokenMessage:
		var out []segment
		for _, f := range []string{"DEADBEEFDEADBEEFDEADBEEFDEADBEEF.jpg", "B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0.png", "1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A1A.jpg"} {
			out = append(out, img(f, cdn(f), nil))
		}
		return out
	case MediaOtherMessage:
		sticker := "https://gxh.vip.qq.com/club/item/parcel/item/9a/9a2b3c4d5e6f708192a3b4c5d6e7f809/raw300.gif"
		return []segment{
			seg("video", map[string]any{"file": "C1C1C1C1C1C1C1C1C1C1C1C1C1C1C1C1.mp4", "url": "https://multimedia.nt.qq.com.cn/download?appid=1415&fileid=C1C1"}),
			seg("file", map[string]any{"file": "季度报告.pdf", "file_id": "/6b1c2d3e-0f4a-4b5c-8d9e-0a1b2c3d4e5f", "file_size": 482113,
				"name": "季度报告.pdf", "size": 482113, "id": "/6b1c2d3e-0f4a-4b5c-8d9e-0a1b2c3d4e5f", "url": "", "file_hash": ""}),
			seg("face", map[string]any{"id": "14"}),
			img("9a-9a2b3c4d5e6f708192a3b4c5d6e7f809.gif", sticker, map[string]any{"summary": "[开心]", "emoji_id": "9a2b3c4d5e6f708192a3b4c5d6e7f809", "emoji_package_id": 230741, "key": "a1b2c3d4e5f60718"}),
		}
	}
	return nil
}

// mediaGetMsg answers get_msg for a message with media as SnowLuma does,
// and hands any other id to next.
func mediaGetMsg(next Handler) Handler {
	return func(params json.RawMessage) Reply {
		var p struct {
			MessageID json.Number `json:"message_id"`
		}
		json.Unmarshal(params, &p)
		id, _ := strconv.ParseInt(strings.Trim(p.MessageID.String(), `"`), 10, 64)
		segs := mediaMessage(id)
		if segs == nil {
			return next(params)
		}
		return OK(messageEvent{Time: 1700000000, MessageType: "group", SubType: "normal", MessageID: int32(id), RealID: ptr(int32(id)),
			MessageSeq: id, GroupID: 30003, UserID: 20002, Message: segs, RawMessage: rawMessage(segs),
			Sender: groupSender{UserID: 20002, Nickname: "Alice", Role: "member", Sex: "unknown"}, Anonymous: json.RawMessage("null")})
	}
}

// ocrImage answers ocr_image: the texts of a known picture, given by its
// cached id or URL, with made-up confidences and boxes.
func (s *Server) ocrImage(params json.RawMessage) Reply {
	var p struct {
		Image string `json:"image"`
	}
	json.Unmarshal(params, &p)
	if p.Image == "" {
		return Failed(1400, "image is required")
	}
	m, ok := samplesByID()[p.Image]
	if !ok {
		return Failed(100, "ocr_image needs an http(s) image url or a cached image file_id; base64/local-file input is not supported")
	}
	type point struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	type text struct {
		Text        string  `json:"text"`
		Confidence  float64 `json:"confidence"`
		Coordinates []point `json:"coordinates"`
	}
	out := struct {
		Texts    []text `json:"texts"`
		Language string `json:"language"`
	}{Texts: []text{}, Language: "zh"}
	for i, t := range m.OCR {
		y := float64(20 + 40*i)
		out.Texts = append(out.Texts, text{t, 0.97, []point{{12, y}, {200, y}, {200, y + 30}, {12, y + 30}}})
	}
	return OK(out)
}

// pttText answers fetch_ptt_text for the voice message; SnowLuma's own
// words for a message it does not have or that holds no voice.
func (s *Server) pttText(params json.RawMessage) Reply {
	var p struct {
		MessageID json.Number `json:"message_id"`
	}
	json.Unmarshal(params, &p)
	id, _ := strconv.ParseInt(strings.Trim(p.MessageID.String(), `"`), 10, 64)
	if id == 0 {
		return Failed(1400, "message_id is required")
	}
	if s.world != nil {
		s.world.mu.Lock()
		m := s.world.messages[int32(id)]
		s.world.mu.Unlock()
		if m != nil && hasVoice(m.segments) {
			return OK(map[string]string{"text": VoiceText})
		}
	} else if id == MediaVoiceMessage {
		return OK(map[string]string{"text": VoiceText})
	}
	if id == MediaVoiceMessage || mediaMessage(id) != nil {
		return Failed(100, "消息中不包含语音")
	}
	return Failed(100, "消息不存在或已被撤回")
}

func hasVoice(segs []segment) bool {
	for _, s := range segs {
		if s.Type == "record" {
			return true
		}
	}
	return false
}

// seedMedia adds the photos and the voice message to the first group's
// history, as the newest messages, so that the sandbox can show them.
func (w *world) seedMedia() {
	g := w.groups[0]
	at := w.epoch
	if ids := w.byPeer[peer{true, g.id}]; len(ids) > 0 {
		at = w.messages[ids[len(ids)-1]].time + 60
	}
	for _, id := range []int64{MediaPhotosMessage, MediaVoiceMessage} {
		m := g.members[len(g.members)-1]
		w.store(peer{true, g.id}, m.id, at, mediaMessage(id))
		at += 30
	}
}

// samplePhoto is a w×h JPEG of a smooth scene with grain of the given
// bits (at most 8), seeded.
func samplePhoto(w, h int, seed uint64, grainBits uint) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed0005))
	m := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	wave := make([]float64, w+h) // the scene: a wave across the frame
	for i := range wave {
		wave[i] = 128 + 90*math.Sin(float64(i)*6/float64(w))
	}
	grain := r.Uint64()
	for y := range h {
		row := m.Y[y*m.YStride:]
		for x := range w {
			grain = grain*6364136223846793005 + 1442695040888963407
			row[x] = uint8(max(0, min(255, wave[x+y/3]+float64(grain>>(64-grainBits))-float64(int(1)<<grainBits/2))))
		}
	}
	for y := range (h + 1) / 2 {
		for x := range (w + 1) / 2 {
			i := m.COffset(2*x, 2*y)
			m.Cb[i] = uint8(100 + 60*x/((w+1)/2))
			m.Cr[i] = uint8(160 - 50*y/((h+1)/2))
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, m, &jpeg.Options{Quality: 85}) // encoding into memory does not fail
	return b.Bytes()
}

// withExif inserts an APP1 EXIF segment naming ExifMarker as the camera's
// maker right after a JPEG's start marker.
func withExif(jpg []byte) []byte {
	// A little-endian TIFF header, one IFD with one entry: Make (0x010F),
	// ASCII, its value at offset 26.
	maker := ExifMarker + "\x00"
	tiff := []byte("II*\x00\x08\x00\x00\x00\x01\x00\x0f\x01\x02\x00")
	tiff = binary.LittleEndian.AppendUint32(tiff, uint32(len(maker)))
	tiff = binary.LittleEndian.AppendUint32(tiff, 26)
	tiff = append(tiff, 0, 0, 0, 0)
	tiff = append(tiff, maker...)
	body := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xff, 0xe1}
	seg = binary.BigEndian.AppendUint16(seg, uint16(len(body)+2))
	seg = append(seg, body...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// sampleAlphaPNG is a 64×64 disc on a transparent ground.
func sampleAlphaPNG() []byte {
	m := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			dx, dy := float64(x)-31.5, float64(y)-31.5
			if dx*dx+dy*dy < 28*28 {
				m.SetNRGBA(x, y, color.NRGBA{250, uint8(180 + x), 40, 255})
			}
		}
	}
	var b bytes.Buffer
	png.Encode(&b, m)
	return b.Bytes()
}

// sampleGIF is a 40×30 animation of three frames.
func sampleGIF() []byte {
	a := &gif.GIF{}
	for f := range 3 {
		m := image.NewPaletted(image.Rect(0, 0, 40, 30), palette.Plan9)
		for y := range 30 {
			for x := range 40 {
				m.SetColorIndex(x, y, uint8((x/8+y/6+f)%16*16))
			}
		}
		a.Image = append(a.Image, m)
		a.Delay = append(a.Delay, 20)
	}
	var b bytes.Buffer
	gif.EncodeAll(&b, a)
	return b.Bytes()
}

// sampleBomb is a valid w×h black PNG (one bit a pixel) made without
// holding its pixels: a few kilobytes that would decode to w×h×8 bytes.
func sampleBomb(w, h int) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		b.WriteString(typ)
		c.Write([]byte(typ))
		b.Write(data)
		c.Write(data)
		binary.Write(&b, binary.BigEndian, c.Sum32())
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	chunk("IHDR", append(ihdr, 1, 0, 0, 0, 0)) // 1-bit greyscale
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+(w+7)/8) // filter 0, then black
	for range h {
		zw.Write(row)
	}
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

// lyingJPEG is jpg with its frame header claiming w×h pixels.
func lyingJPEG(jpg []byte, w, h int) []byte {
	out := bytes.Clone(jpg)
	for i := 2; i+9 < len(out); {
		if out[i] != 0xff {
			break
		}
		marker := out[i+1]
		n := int(binary.BigEndian.Uint16(out[i+2:]))
		if marker == 0xc0 || marker == 0xc2 {
			binary.BigEndian.PutUint16(out[i+5:], uint16(h))
			binary.BigEndian.PutUint16(out[i+7:], uint16(w))
			return out
		}
		i += 2 + n
	}
	panic(fmt.Sprintf("simulator: no frame header in a %d-byte JPEG", len(jpg)))
}

// sampleVoice is a short AMR voice file: the AMR magic, then 3 s of
// 20 ms frames that carry no sound (NO_DATA).
func sampleVoice() []byte {
	return append([]byte("#!AMR\n"), bytes.Repeat([]byte{0x7c}, 150)...)
}

// SamplePhoto is a w×h JPEG with the grain of a phone camera's photo (a
// 12-megapixel one is about 3 MB), for benchmarks.
func SamplePhoto(w, h int) []byte { return samplePhoto(w, h, 3, 6) }
