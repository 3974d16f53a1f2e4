package txwire

import "testing"

func TestCountOps(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int
	}{
		{"empty", "", 0},
		{"two inserts", "--c\r\nContent-Type: application/http\r\n\r\nPOST http://h/a/t HTTP/1.1\r\nAccept: x\r\n\r\n{\"PartitionKey\":\"p\",\"V\":\" HTTP/1.1\\r\\n\"}\r\n--c\r\n\r\nDELETE http://h/a/t(PartitionKey='p',RowKey='r') HTTP/1.1\r\n\r\n", 2},
	}
	for _, tt := range tests {
		if got := CountOps([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: CountOps = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestPartitionOf(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   string
		want   string
		wantOK bool
	}{
		{"insert body", "/a/t", `{"PartitionKey": "p\"1","RowKey":"r"}`, `p"1`, true},
		{"update path", "/a/t(PartitionKey='O''Brien',RowKey='r')", "", "O'Brien", true},
		{"batch delete", "/a/$batch", "DELETE http://h/a/t(PartitionKey='a%20b',RowKey='r') HTTP/1.1\r\n", "a b", true},
		{"query", "/a/t()", "", "", false},
	}
	for _, tt := range tests {
		var body []byte
		if tt.body != "" {
			body = []byte(tt.body)
		}
		got, ok := PartitionOf(tt.path, body)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("%s: PartitionOf = %q, %v, want %q, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}
