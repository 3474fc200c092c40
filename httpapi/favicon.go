package httpapi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// faviconICO draws /favicon.ico, the icon of web/static/icon.svg (an
// envelope on the accent colour) at 32×32, as an ICO file holding one PNG
// image, for the clients that ask for /favicon.ico whatever the page says.
func faviconICO() ([]byte, error) {
	const size = 32
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	accent := color.RGBA{0x0b, 0x4f, 0x8a, 0xff}
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	for y := range size {
		for x := range size {
			img.Set(x, y, accent)
		}
	}
	// The envelope: a rectangle from (6,10) to (26,23), two pixels wide,
	// and its flap from the top corners to (16,18).
	for x := 6; x <= 26; x++ {
		for _, y := range []int{9, 10, 22, 23} {
			img.Set(x, y, white)
		}
	}
	for y := 9; y <= 23; y++ {
		for _, x := range []int{5, 6, 26, 27} {
			img.Set(x, y, white)
		}
	}
	for x := 6; x <= 26; x++ {
		d := x - 6
		if x > 16 {
			d = 26 - x
		}
		y := 10 + d*8/10
		img.Set(x, y, white)
		img.Set(x, y+1, white)
	}
	var pngBytes bytes.Buffer
	if err := png.Encode(&pngBytes, img); err != nil {
		return nil, fmt.Errorf("favicon: %w", err)
	}
	var b bytes.Buffer
	// ICONDIR: reserved, type 1 (icon), one image; then its ICONDIRENTRY.
	hdr := []any{uint16(0), uint16(1), uint16(1),
		uint8(size), uint8(size), uint8(0), uint8(0), uint16(1), uint16(32),
		uint32(pngBytes.Len()), uint32(6 + 16)}
	for _, v := range hdr {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			return nil, fmt.Errorf("favicon: %w", err)
		}
	}
	b.Write(pngBytes.Bytes())
	return b.Bytes(), nil
}
