package api

// Page is a listing's paging: how many tasks match the filter, the
// cursor of the next page ("" on the last one) and the number of tasks
// per phase among those matching q (the phase filter aside).
type Page struct {
	Total      int            `json:"total"`
	NextCursor string         `json:"next_cursor"`
	Phases     map[string]int `json:"phases"`
}
