package media

import "sync/atomic"

// Stats counts what a server did with media, for get_runtime_info. Its
// zero value is ready; it is safe for concurrent use.
type Stats struct {
	Calls, Images, Unreadable, Voices, VoiceTexts, OCRTexts, OCRFailed atomic.Int64
}

// Runtime is a snapshot of the limits and Stats, as get_runtime_info shows
// them.
type Runtime struct {
	MaxImageBytes int   `json:"max_image_bytes"`
	MaxSide       int   `json:"max_side"`
	MaxPixels     int64 `json:"max_pixels"`
	DecodeTimeMS  int64 `json:"decode_time_limit_ms"`
	// Calls counts view_media calls; Images the pictures shown;
	// Unreadable the pictures refused as unreadable; Voices the voice
	// messages asked for and VoiceTexts those SnowLuma gave a text for;
	// OCRTexts and OCRFailed the ocr_image answers and failures.
	Calls      int64 `json:"calls"`
	Images     int64 `json:"images_shown"`
	Unreadable int64 `json:"images_unreadable"`
	Voices     int64 `json:"voices"`
	VoiceTexts int64 `json:"voice_texts"`
	OCRTexts   int64 `json:"ocr_answered"`
	OCRFailed  int64 `json:"ocr_failed"`
}

// Runtime returns the decoder's limits and s's counts.
func (d *Decoder) Runtime(s *Stats) Runtime {
	return Runtime{MaxImageBytes: d.maxBytes, MaxSide: MaxSide, MaxPixels: d.maxPixels, DecodeTimeMS: d.timeout.Milliseconds(),
		Calls: s.Calls.Load(), Images: s.Images.Load(), Unreadable: s.Unreadable.Load(), Voices: s.Voices.Load(),
		VoiceTexts: s.VoiceTexts.Load(), OCRTexts: s.OCRTexts.Load(), OCRFailed: s.OCRFailed.Load()}
}
