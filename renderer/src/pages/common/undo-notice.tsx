import { Button } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';

/** How long a deletion can be taken back from the notice that says it was made. */
const UNDO_SECONDS = 10;

/** Says that something was deleted, with a button that takes the deletion back for a while. */
export function showUndoable(
  message: MessageInstance,
  notice: { key: string; text: string; undoLabel: string; testId: string; undo: () => Promise<void> },
): void {
  message.success({
    key: notice.key,
    duration: UNDO_SECONDS,
    content: (
      <span data-testid={notice.testId}>
        {notice.text}{' '}
        <Button
          type="link"
          size="small"
          onClick={() => {
            message.destroy(notice.key);
            void notice.undo();
          }}
        >
          {notice.undoLabel}
        </Button>
      </span>
    ),
  });
}
