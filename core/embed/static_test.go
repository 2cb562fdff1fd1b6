package embed

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"
)

// tinyModel is a 2-dimension model of three tokens.
func tinyModel(t *testing.T) (*Static, []byte) {
	t.Helper()
	data, err := EncodeStatic(2, Lead{}, []string{"cart", "order", "payment"}, []float32{
		1, 0, // cart
		0, 2, // order
		-0.5, 0.5, // payment
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadStatic(data)
	if err != nil {
		t.Fatal(err)
	}
	return m, data
}

func TestStaticKnownAnswer(t *testing.T) {
	m, _ := tinyModel(t)
	if m.Dim() != 2 || m.Len() != 3 {
		t.Fatalf("dim %d, len %d", m.Dim(), m.Len())
	}
	tests := []struct {
		text string
		want []float32 // nil: no known token
	}{
		{"cart", []float32{1, 0}},
		{"getOrder", []float32{0, 1}},
		// cart + order: (1, 2) normalised.
		{"cart order", []float32{1 / float32(math.Sqrt(5)), 2 / float32(math.Sqrt(5))}},
		// cart twice weighs 1 + ln 2: (1.693, 2) normalised.
		{"cart cart order", func() []float32 {
			a := 1 + math.Log(2)
			n := math.Hypot(a, 2)
			return []float32{float32(a / n), float32(2 / n)}
		}()},
		{"shipping label", nil},
	}
	for _, tt := range tests {
		got := m.Embed(tt.text)
		if (got == nil) != (tt.want == nil) {
			t.Fatalf("Embed(%q) = %v, want %v", tt.text, got, tt.want)
		}
		for d := range tt.want {
			if math.Abs(float64(got[d]-tt.want[d])) > 0.01 {
				t.Errorf("Embed(%q) = %v, want %v", tt.text, got, tt.want)
				break
			}
		}
	}
	for i, tok := range []string{"cart", "order", "payment"} {
		if m.Lookup(tok) != i || m.Token(i) != tok {
			t.Errorf("Lookup(%q) = %d", tok, m.Lookup(tok))
		}
	}
	if m.Lookup("basket") != -1 || m.Lookup("aaa") != -1 || m.Lookup("zzz") != -1 {
		t.Error("Lookup of an unknown token is not -1")
	}
}

func TestStaticRoundTrip(t *testing.T) {
	// Quantization keeps each value within half a step of its row's scale.
	dim := 16
	toks := []string{"alpha", "beta", "gamma", "delta"}
	vecs := make([]float32, len(toks)*dim)
	for i := range vecs {
		vecs[i] = float32(math.Sin(float64(i)*1.7)) * float32(1+i%5)
	}
	sorted := []string{"alpha", "beta", "delta", "gamma"}
	data, err := EncodeStatic(dim, Lead{}, sorted, vecs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadStatic(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sorted {
		row := make([]float64, dim)
		m.Row(i, 1, row)
		mx := 0.0
		for _, v := range vecs[i*dim : (i+1)*dim] {
			mx = math.Max(mx, math.Abs(float64(v)))
		}
		for d, v := range vecs[i*dim : (i+1)*dim] {
			if math.Abs(row[d]-float64(v)) > mx/127/2+1e-6 {
				t.Fatalf("token %d dim %d: %g after the round trip, was %g", i, d, row[d], v)
			}
		}
	}
	// The same bytes twice: the same ID, the same vectors.
	again, _ := EncodeStatic(dim, Lead{}, sorted, vecs)
	m2, _ := LoadStatic(again)
	if m.ID() != m2.ID() || !strings.HasPrefix(m.ID(), StaticPrefix+"16d-") {
		t.Errorf("IDs %q and %q", m.ID(), m2.ID())
	}
	a, b := m.Embed("alpha gamma delta"), m2.Embed("delta alpha gamma")
	for d := range a {
		if a[d] != b[d] {
			t.Fatalf("vectors differ at %d: %v, %v", d, a, b)
		}
	}
}

func TestStaticRefusesBadFiles(t *testing.T) {
	_, good := tinyModel(t)
	flip := func(at int) []byte {
		b := append([]byte(nil), good...)
		b[at] ^= 0x40
		return b
	}
	version := func() []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[8:], 99)
		body := b[:len(b)-4]
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(body))
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"magic", append([]byte("NOTMODEL"), good[8:]...), "bad magic"},
		{"flipped vector byte", flip(len(good) - 6), "checksum"},
		{"truncated", good[:len(good)-10], "checksum"},
		{"other version", version(), "format version 99"},
	}
	for _, tt := range tests {
		_, err := LoadStatic(tt.data)
		if !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want ErrBadModel saying %q", tt.name, err, tt.want)
		}
	}
	if _, err := EncodeStatic(2, Lead{}, []string{"b", "a"}, make([]float32, 4)); err == nil {
		t.Error("unsorted tokens encoded")
	}
	if _, err := EncodeStatic(3, Lead{}, []string{"a", "b"}, make([]float32, 4)); err == nil {
		t.Error("mismatched dimension encoded")
	}
}

func TestShippedModel(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != BuiltinDim || m.Len() < 1000 {
		t.Fatalf("shipped model: dimension %d, %d tokens", m.Dim(), m.Len())
	}
	// Shipped reads the checksum without computing it; the bytes match it.
	if v, err := LoadStatic(shippedModel); err != nil || v.ID() != m.ID() {
		t.Fatalf("the shipped model checked: %v (ID %v, Shipped's %s)", err, v, m.ID())
	}
	if _, err := ShippedFor(StaticPrefix + "256d-00000000"); err == nil || !strings.Contains(err.Error(), "--reembed") {
		t.Errorf("ShippedFor another model: %v", err)
	}
	e := StaticEmbedder{M: m}
	vs, err := e.Embed(context.Background(), Query, []string{"open a database connection", "close the file", "xqzv"})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0] == nil || vs[1] == nil || vs[2] != nil {
		t.Fatalf("vectors: %v", vs)
	}
	// Related texts are nearer than unrelated ones: a sanity check of
	// training, not a benchmark.
	docs, _ := e.Embed(context.Background(), Document, []string{
		"func Open(driverName, dataSourceName string) (*DB, error) { db := &DB{connector: c}; return db, nil }",
		"func (f *File) Close() error { if f == nil { return ErrInvalid }; return f.file.close() }",
	})
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if dot(vs[0], docs[0]) <= dot(vs[0], docs[1]) || dot(vs[1], docs[1]) <= dot(vs[1], docs[0]) {
		t.Errorf("queries are not nearest their own code: %.3f %.3f / %.3f %.3f",
			dot(vs[0], docs[0]), dot(vs[0], docs[1]), dot(vs[1], docs[1]), dot(vs[1], docs[0]))
	}
}

// staticBenchDoc is a typical code chunk (about 1.3 KB).
const staticBenchDoc = `services/orders/handler.go > OrderHandler > CreateOrder
func (h *OrderHandler) CreateOrder(w http.ResponseWriter, r *http.Request) {
	var req CreateOrderRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	total, err := h.pricing.Quote(ctx, req.Items)
	if err != nil {
		h.log.Error("quote failed", "customer", req.CustomerID, "err", err)
		http.Error(w, "pricing unavailable", http.StatusServiceUnavailable)
		return
	}
	order := Order{ID: uuid.NewString(), CustomerID: req.CustomerID, Items: req.Items, TotalCents: total}
	if err := h.store.Insert(ctx, order); err != nil {
		http.Error(w, "cannot store order", http.StatusInternalServerError)
		return
	}
	if err := h.bus.Publish(ctx, "orders.created", order); err != nil {
		h.log.Warn("publish failed; the outbox retries", "order", order.ID, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(order)
}`

// BenchmarkStaticEmbedDocument embeds one code chunk with the shipped
// model (100k chunks take 100000 times ns/op).
func BenchmarkStaticEmbedDocument(b *testing.B) {
	m, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(staticBenchDoc)))
	for b.Loop() {
		if m.Embed(staticBenchDoc) == nil {
			b.Fatal("no vector")
		}
	}
}

// BenchmarkStaticEmbedQuery embeds a plain-language question.
func BenchmarkStaticEmbedQuery(b *testing.B) {
	m, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if m.Embed("where is a new order stored and who is told about it") == nil {
			b.Fatal("no vector")
		}
	}
}

// BenchmarkStaticLoad checks and opens the shipped model's bytes: what a
// one-shot command pays before its first query.
func BenchmarkStaticLoad(b *testing.B) {
	for b.Loop() {
		if _, err := LoadStatic(shippedModel); err != nil {
			b.Fatal(err)
		}
	}
}

func TestStaticLead(t *testing.T) {
	lead := Lead{N: 2, Weight: 2}
	data, err := EncodeStatic(2, lead, []string{"cart", "order", "payment"}, []float32{1, 0, 0, 2, -0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadStatic(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Lead() != lead {
		t.Fatalf("lead %+v, want %+v", m.Lead(), lead)
	}
	norm := func(x, y float64) []float32 {
		n := math.Hypot(x, y)
		return []float32{float32(x / n), float32(y / n)}
	}
	tests := []struct {
		text string
		want []float32
	}{
		// The first two tokens weigh 2: 2(1, 0) + 2(0, 2) + (-0.5, 0.5).
		{"cart order payment", norm(1.5, 4.5)},
		// payment first: 2(-0.5, 0.5) + 2(1, 0) + (0, 2).
		{"payment cart order", norm(1, 3)},
		// A text no longer than the lead is weighed alike.
		{"cart order", norm(1, 2)},
	}
	for _, tt := range tests {
		got := m.Embed(tt.text)
		for d := range tt.want {
			if math.Abs(float64(got[d]-tt.want[d])) > 0.01 {
				t.Errorf("Embed(%q) = %v, want %v", tt.text, got, tt.want)
				break
			}
		}
	}
	if _, err := EncodeStatic(2, Lead{N: 2, Weight: -1}, []string{"a"}, []float32{1, 0}); err == nil {
		t.Error("negative lead weight encoded")
	}
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[24:], math.Float32bits(float32(math.NaN())))
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc32.ChecksumIEEE(bad[:len(bad)-4]))
	if _, err := LoadStatic(bad); !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "lead") {
		t.Errorf("a NaN lead weight: %v", err)
	}
}

// TestStaticVersions checks the two formats: a model without a lead is
// written as version 1 (what every model was before leads), and a
// version 2 file with a zero lead embeds as it does.
func TestStaticVersions(t *testing.T) {
	m1, v1 := tinyModel(t)
	if v := binary.LittleEndian.Uint32(v1[8:]); v != 1 {
		t.Fatalf("a model without a lead is written as version %d, want 1", v)
	}
	v2 := append(append(append([]byte(nil), v1[:20]...), make([]byte, 8)...), v1[20:]...)
	binary.LittleEndian.PutUint32(v2[8:], 2)
	binary.LittleEndian.PutUint32(v2[len(v2)-4:], crc32.ChecksumIEEE(v2[:len(v2)-4]))
	m2, err := LoadStatic(v2)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Lead() != (Lead{}) || m2.Len() != 3 {
		t.Fatalf("version 2, zero lead: lead %+v, %d tokens", m2.Lead(), m2.Len())
	}
	for _, text := range []string{"cart", "cart order payment", "payment payment order"} {
		a, b := m1.Embed(text), m2.Embed(text)
		for d := range a {
			if a[d] != b[d] {
				t.Errorf("Embed(%q): version 1 %v, version 2 %v", text, a, b)
				break
			}
		}
	}
	withLead, err := EncodeStatic(2, Lead{N: 4, Weight: 1.5}, []string{"cart"}, []float32{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(withLead[8:]); v != 2 {
		t.Errorf("a model with a lead is written as version %d, want 2", v)
	}
}
