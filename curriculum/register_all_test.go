package curriculum

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// batchRecorder counts RecordTasks calls beside memRecorder's rows.
type batchRecorder struct {
	memRecorder
	batches int
	fail    error
}

func (b *batchRecorder) RecordTasks(tis []TaskInfo) error {
	if b.fail != nil {
		return b.fail
	}
	b.batches++
	b.tasks = append(b.tasks, tis...)
	return nil
}

func TestRegisterAll(t *testing.T) {
	tests := []struct {
		name      string
		known     []TaskInfo
		add       []TaskInfo
		fail      error
		wantErr   error
		wantRows  int // tasks recorded by RegisterAll
		wantTasks int
	}{
		{name: "new tasks in one batch", add: []TaskInfo{{ID: "a", T: 3}, {ID: "b", T: 4}}, wantRows: 2, wantTasks: 2},
		{name: "known tasks are kept", known: []TaskInfo{{ID: "a", T: 3}}, add: []TaskInfo{{ID: "a", T: 3}, {ID: "b", T: 4}}, wantRows: 1, wantTasks: 2},
		{name: "a duplicate is recorded once", add: []TaskInfo{{ID: "a", T: 3}, {ID: "a", T: 3}}, wantRows: 1, wantTasks: 1},
		{name: "a conflict registers nothing", known: []TaskInfo{{ID: "a", T: 3}}, add: []TaskInfo{{ID: "b", T: 4}, {ID: "a", T: 5}}, wantErr: ErrTaskConflict, wantTasks: 1},
		{name: "a conflict within the batch", add: []TaskInfo{{ID: "b", T: 4}, {ID: "b", T: 5}}, wantErr: ErrTaskConflict},
		{name: "a failed commit registers nothing", add: []TaskInfo{{ID: "a", T: 3}}, fail: errors.New("disk full"), wantErr: errors.New("disk full")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &batchRecorder{}
			e, err := New(WithRecorder(rec))
			require.NoError(t, err)
			for _, ti := range tc.known {
				require.NoError(t, e.Register(ti))
			}
			before := len(rec.tasks)
			rec.fail = tc.fail
			err = e.RegisterAll(tc.add)
			switch {
			case tc.fail != nil:
				require.ErrorContains(t, err, tc.fail.Error())
			case tc.wantErr != nil:
				require.ErrorIs(t, err, tc.wantErr)
			default:
				require.NoError(t, err)
				assert.Equal(t, 1, rec.batches)
			}
			assert.Len(t, rec.tasks[before:], tc.wantRows)
			assert.Len(t, e.Tasks(), tc.wantTasks)
		})
	}
}
