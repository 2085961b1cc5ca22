package transfer

import (
	"context"
	"fmt"
)

// A Shape is how a stream action's answer travels, as the catalog records
// it for each stream action (catalog.StreamKind uses the same words).
type Shape string

const (
	// ShapeDownload streams a file's chunks, saved into a Store.
	ShapeDownload Shape = "download"
	// ShapeUpload takes a file in chunks: either an automatic upload of a
	// file inside an UploadRoot, or one call whose chunk the caller wrote.
	ShapeUpload Shape = "upload"
	// ShapeFrames is any other stream: its frames go to OnFrame.
	ShapeFrames Shape = "frames"
)

// A Plan is one run of a stream action: its request, its shape and where
// its bytes go.
type Plan struct {
	Shape   Shape
	Request Request
	// Store receives a download's file (ShapeDownload).
	Store *Store
	// Name, when set, is the downloaded file's own name, used when
	// SnowLuma's has no extension (a group file's link).
	Name string
	// Root and File make an upload automatic: the client sends File, a
	// file inside Root, in chunks of its own choosing. Without File an
	// upload is the single call Request describes.
	Root *UploadRoot
	File *Upload
	// OnFrame takes each frame of a generic stream (ShapeFrames), the
	// terminal one included; an error it returns stops the stream and is
	// returned as it is.
	OnFrame func(Frame) error
	// Progress may be nil.
	Progress Progress
}

// An Outcome is what a Plan's run ended with: Download for a download,
// Upload for an automatic upload, and otherwise Terminal, the answer of
// an upload call or the last frame of a generic stream.
type Outcome struct {
	Download *DownloadResult
	Upload   *UploadResult
	Terminal Frame
}

// Transfer runs p: a download (Download), an automatic upload (Upload), an
// upload call (StreamCall) or a generic stream (Stream), as its shape says.
// Each keeps its own contract; an automatic upload's result so far comes
// back together with its error.
func (c *Client) Transfer(ctx context.Context, p Plan) (*Outcome, error) {
	switch p.Shape {
	case ShapeDownload:
		res, err := c.download(ctx, p.Request, p.Store, p.Progress, p.Name)
		return &Outcome{Download: res}, err
	case ShapeUpload:
		if p.File == nil {
			f, err := c.StreamCall(ctx, p.Request)
			return &Outcome{Terminal: f}, err
		}
		up := *p.File
		if up.Header == nil {
			up.Header = p.Request.Header
		}
		res, err := c.Upload(ctx, p.Root, up, p.Progress)
		return &Outcome{Upload: res}, err
	case ShapeFrames:
		out := &Outcome{}
		err := c.Stream(ctx, p.Request, func(f Frame) error {
			if f.Terminal {
				out.Terminal = f
			}
			if p.OnFrame == nil {
				return nil
			}
			return p.OnFrame(f)
		})
		return out, err
	}
	return nil, fmt.Errorf("transfer: %s: no stream of shape %q", p.Request.Action, p.Shape)
}
