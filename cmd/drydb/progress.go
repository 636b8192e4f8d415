package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress draws a one-line progress bar on stderr while build reads its
// inputs: rows, rows/s, bytes read of the total, and an ETA from the byte
// rate. It is only started when stderr is a terminal (or with --progress),
// so logs and pipes stay clean.
type progress struct {
	w     io.Writer
	total int64
	rows  atomic.Uint64
	bytes atomic.Int64
	mu    sync.Mutex
	phase string
	start time.Time
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	drawn bool
	// writing is set once every input is read and the file is being
	// written.
	writing bool
}

func startProgress(w io.Writer, total int64) *progress {
	p := &progress{w: w, total: total, start: time.Now(), done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.bytes.Add(int64(n))
	return n, err
}

func (p *progress) reader(r io.Reader, name string) io.Reader {
	p.setPhase("reading " + name)
	return &countingReader{r, p}
}

func (p *progress) setPhase(s string) {
	p.mu.Lock()
	p.phase = s
	p.mu.Unlock()
}

// clear erases the bar so a message can be printed on a clean line; the
// next tick redraws it.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func (p *progress) stop() {
	p.once.Do(func() {
		close(p.done)
		p.wg.Wait()
		p.clear()
	})
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start).Seconds()
	rows := p.rows.Load()
	read := p.bytes.Load()
	var b strings.Builder
	b.WriteString("\r")
	b.WriteString(p.phase)
	if p.writing {
		// The engine reports no progress while it sorts and writes, so
		// show what was read and how long the build has taken.
		fmt.Fprintf(&b, "  %d rows read, %s elapsed\x1b[K", rows, time.Duration(el*float64(time.Second)).Round(time.Second))
		io.WriteString(p.w, b.String())
		p.drawn = true
		return
	}
	if p.total > 0 {
		frac := float64(read) / float64(p.total)
		frac = min(frac, 1)
		const width = 24
		fill := int(frac * width)
		fmt.Fprintf(&b, " [%s%s] %3.0f%%", strings.Repeat("#", fill), strings.Repeat(".", width-fill), 100*frac)
	}
	fmt.Fprintf(&b, "  %d rows", rows)
	if el > 0 {
		fmt.Fprintf(&b, "  %.0f rows/s", float64(rows)/el)
	}
	if p.total > 0 {
		fmt.Fprintf(&b, "  %s / %s", humanBytes(float64(read)), humanBytes(float64(p.total)))
		if read > 0 && read < p.total && el > 0.5 {
			eta := time.Duration(float64(p.total-read) / (float64(read) / el) * float64(time.Second))
			fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
		}
	} else {
		fmt.Fprintf(&b, "  %s", humanBytes(float64(read)))
	}
	b.WriteString("\x1b[K")
	io.WriteString(p.w, b.String())
	p.drawn = true
}
