// Package qqmsg reads and renders QQ messages the way SnowLuma does: a
// message given as an array of segments, a single segment, a string that
// SnowLuma reads as a JSON array, or a string of CQ codes, with every key
// SnowLuma loads a resource from. It is a leaf: channel, archive, media and
// the send gate import it, and it imports none of them.
//
// Two directions live here. Incoming messages (events and history) are
// parsed into segments and rendered as text for a model; outgoing
// messages (an action's params) are parsed as SnowLuma's handlers would,
// so that the gate judges what SnowLuma will send.
package qqmsg
