/**
 * `count` tasks of one form as a replica holds them, a second apart from 2026-01-01 (task 0 the
 * oldest), for the task-list benches (Node and the browser page alike).
 */
export function benchTasks(count: number, formId: string) {
  const started = Date.parse('2026-01-01T00:00:00Z');
  return Array.from({ length: count }, (_, n) => {
    const at = new Date(started + n * 1000).toISOString();
    return {
      id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
      formId,
      statusId: '00000000-0000-7000-8000-000000000001',
      title: `Задача ${n}`,
      description: `Описание задачи ${n}`,
      fields: {},
      labels: {},
      assignees: [],
      createdBy: null,
      createdAt: at,
      updatedAt: at,
    };
  });
}
