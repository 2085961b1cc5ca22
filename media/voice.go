package media

import (
	"bytes"
	"encoding/binary"
)

// VoiceSeconds is the length of a QQ voice message in seconds, counted from
// its frames: SILK v3 (QQ's own format, with or without its leading 0x02
// byte) and AMR-NB, both 20 ms a frame. It reports false for any other
// format or a file whose frames do not add up. SnowLuma's record segments
// carry no duration, so the audio is the only source of one.
func VoiceSeconds(data []byte) (float64, bool) {
	var frames int
	var ok bool
	switch {
	case bytes.HasPrefix(data, []byte("#!SILK_V3")):
		frames, ok = silkFrames(data[len("#!SILK_V3"):])
	case bytes.HasPrefix(data, []byte("\x02#!SILK_V3")):
		frames, ok = silkFrames(data[len("\x02#!SILK_V3"):])
	case bytes.HasPrefix(data, []byte("#!AMR\n")):
		frames, ok = amrFrames(data[len("#!AMR\n"):])
	}
	if !ok || frames == 0 {
		return 0, false
	}
	return float64(frames) * 0.02, true
}

// silkFrames counts SILK frames: each a little-endian 16-bit length, then
// that many bytes; a length of 0xFFFF (or the end) ends the stream.
func silkFrames(b []byte) (int, bool) {
	n := 0
	for len(b) >= 2 {
		size := int(binary.LittleEndian.Uint16(b))
		if size == 0xffff {
			break
		}
		b = b[2:]
		if size > len(b) {
			return 0, false
		}
		b = b[size:]
		n++
	}
	return n, true
}

// amrFrames counts AMR-NB frames: each a header byte whose frame type
// gives the size of the speech bits that follow.
func amrFrames(b []byte) (int, bool) {
	// Bytes after the header, by frame type 0-15 (AMR-NB, RFC 4867 5.3).
	sizes := [16]int{12, 13, 15, 17, 19, 20, 26, 31, 5, 6, 5, 5, -1, -1, -1, 0}
	n := 0
	for len(b) > 0 {
		size := sizes[(b[0]>>3)&0x0f]
		if size < 0 || 1+size > len(b) {
			return 0, false
		}
		b = b[1+size:]
		n++
	}
	return n, true
}
