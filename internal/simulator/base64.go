package simulator

import (
	"encoding/base64"
	"slices"
)

// base64Alphabet is the standard alphabet of RFC 4648, padded with '='.
const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// appendBase64 appends the standard, padded base64 encoding of src to dst,
// as base64.StdEncoding.AppendEncode does.
//
// It exists for the race detector: a download of tens of MiB in a test
// built with -race spent two thirds of its CPU in the instrumented loads
// and stores of the standard encoder. This loop touches only src and the
// part of dst it appends, which no other goroutine holds while it runs, so
// its accesses are left out of the detector's bookkeeping.
//
//go:norace
func appendBase64(dst, src []byte) []byte {
	n, size := len(dst), base64.StdEncoding.EncodedLen(len(src))
	dst = slices.Grow(dst, size)[:n+size]
	out := dst[n:]
	i, o := 0, 0
	for ; i+3 <= len(src); i, o = i+3, o+4 {
		v := uint(src[i])<<16 | uint(src[i+1])<<8 | uint(src[i+2])
		out[o] = base64Alphabet[v>>18&0x3f]
		out[o+1] = base64Alphabet[v>>12&0x3f]
		out[o+2] = base64Alphabet[v>>6&0x3f]
		out[o+3] = base64Alphabet[v&0x3f]
	}
	switch len(src) - i {
	case 1:
		v := uint(src[i]) << 16
		out[o], out[o+1], out[o+2], out[o+3] = base64Alphabet[v>>18&0x3f], base64Alphabet[v>>12&0x3f], '=', '='
	case 2:
		v := uint(src[i])<<16 | uint(src[i+1])<<8
		out[o], out[o+1], out[o+2], out[o+3] = base64Alphabet[v>>18&0x3f], base64Alphabet[v>>12&0x3f], base64Alphabet[v>>6&0x3f], '='
	}
	return dst
}
