import { MAX_QR_BATCH, type QrBatchRequest } from '@shared/api/qr';
import { stringify } from 'csv-stringify/sync';
import { ZipFile } from 'yazl';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Db } from '../../platform/db/db';
import { Problem } from '../../platform/http/problem';
import * as forms from '../forms/forms.service';
import * as tasks from '../tasks/tasks.service';
import { qrPng } from './qr-image';

export interface QrDeps {
  db: Db;
  /** Where the web app is reached: codes open `${publicUrl}/tasks/<id>`. */
  publicUrl: string;
  /** Most codes per archive (tests lower it). */
  maxBatch?: number;
}

/** The address a task's code carries: the task page of the web app (and of a phone's browser). */
export function taskLink(publicUrl: string, taskId: string): string {
  return `${publicUrl}/tasks/${taskId}`;
}

const disabled = (name: string) =>
  Problem.of(
    'qr_generation_disabled',
    `QR codes are turned off for the form “${name}”. An administrator turns them on in the form's settings.`,
  );

async function qrForm(db: Db, auth: AuthContext, formId: string) {
  const form = await forms.findForm(db, auth.organizationId, formId);
  if (!form || !forms.canUseForm(auth, form)) throw forms.formNotFound(formId);
  if (!form.qr_generation_enabled) throw disabled(form.name);
  return form;
}

/** The code of one task the caller can see, as a PNG. */
export async function taskCode(deps: QrDeps, auth: AuthContext, taskId: string, size: number): Promise<Buffer> {
  const task = await tasks.visibleTaskSummary(deps.db, auth, taskId);
  const form = await forms.findForm(deps.db, auth.organizationId, task.formId);
  if (!form?.qr_generation_enabled) throw disabled(form?.name ?? task.formId);
  return qrPng(taskLink(deps.publicUrl, task.id), size);
}

/** A file name from a task's title: characters file systems refuse are replaced, length bounded. */
function fileTitle(title: string): string {
  const clean = title
    .replace(/[\p{Cc}/\\:*?"<>|]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.slice(0, 80).replace(/[ .]+$/, '') || 'task';
}

async function chosenTasks(deps: QrDeps, auth: AuthContext, formId: string, taskIds: string[] | undefined) {
  const max = deps.maxBatch ?? MAX_QR_BATCH;
  if (taskIds) {
    const found = new Map(
      (await tasks.visibleTaskSummaries(deps.db, auth, taskIds))
        .filter((t) => t.formId === formId)
        .map((t) => [t.id, t]),
    );
    const errors = taskIds.flatMap((id, index) =>
      found.has(id)
        ? []
        : [
            {
              location: 'body' as const,
              pointer: `#/taskIds/${index}`,
              detail: `There is no task ${id} of this form you can see`,
              code: 'unknown_task',
            },
          ],
    );
    if (errors.length > 0) {
      throw Problem.of('validation_failed', `${errors.length} of the tasks are not tasks of this form you can see.`, {
        errors,
      });
    }
    return [...new Set(taskIds)].map((id) => found.get(id) as tasks.TaskSummary);
  }
  const rows = await tasks.visibleTaskSummariesOfForm(deps.db, auth, formId, max + 1);
  if (rows.length > max) {
    throw Problem.of(
      'batch_too_large',
      `The form has more than ${max} tasks you can see; choose at most ${max} of them (taskIds) for one archive.`,
    );
  }
  return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
}

/**
 * A ZIP archive of the codes of a form's tasks: one PNG per task, named by its place and title,
 * and `index.csv` telling which file is which task and the address it opens.
 */
export async function formCodes(
  deps: QrDeps,
  auth: AuthContext,
  formId: string,
  request: z.output<typeof QrBatchRequest>,
): Promise<{ archive: Buffer; count: number; formName: string }> {
  const form = await qrForm(deps.db, auth, formId);
  const chosen = await chosenTasks(deps, auth, formId, request.taskIds);
  if (chosen.length === 0) throw Problem.of('conflict', `The form “${form.name}” has no tasks you can see yet.`);
  const zip = new ZipFile();
  const index: string[][] = [['file', 'task_id', 'title', 'link']];
  const digits = Math.max(3, String(chosen.length).length);
  chosen.forEach((task, i) => {
    const link = taskLink(deps.publicUrl, task.id);
    const file = `${String(i + 1).padStart(digits, '0')} ${fileTitle(task.title)}.png`;
    // PNG data is already deflated: stored as is.
    zip.addBuffer(qrPng(link, request.size), file, { compress: false });
    index.push([file, task.id, task.title, link]);
  });
  zip.addBuffer(Buffer.from(`\ufeff${stringify(index)}`), 'index.csv');
  zip.end();
  const parts: Buffer[] = [];
  for await (const part of zip.outputStream) parts.push(part as Buffer);
  return { archive: Buffer.concat(parts), count: chosen.length, formName: form.name };
}
