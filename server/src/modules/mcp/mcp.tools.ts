import { CreateAutomationRequest, UpdateAutomationRequest } from '@shared/api/automations';
import { RowListQuery } from '@shared/api/directories';
import { CreateTaskRequest, PostMessageRequest, TransitionRequest, UpdateTaskRequest } from '@shared/api/tasks';
import { z } from 'zod';
import type { BotActor } from '../../platform/auth/actor';
import type { UnitDeps } from '../../platform/db/unit-of-work';
import * as automations from '../automations/automations.service';
import * as directories from '../directories/directories.service';
import * as rows from '../directories/rows.service';
import * as forms from '../forms/forms.service';
import * as organizations from '../identity/organization.service';
import * as activity from '../tasks/task-activity.service';
import * as tasks from '../tasks/tasks.service';

/** The least mode of a key that is offered a tool. */
type Mode = BotActor['scopes']['mode'];
const RANK: Record<Mode, number> = { read: 0, write: 1, full: 2 };

/** Whether a key of `mode` is offered a tool needing `needs`. */
export function offered(mode: Mode, needs: Mode): boolean {
  return RANK[mode] >= RANK[needs];
}

export interface McpTool<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The least key mode the tool is offered to. */
  needs: Mode;
  input: Input;
  run(deps: UnitDeps, bot: BotActor, input: z.output<Input>): Promise<unknown>;
}

function tool<Input extends z.ZodObject>(definition: McpTool<Input>): McpTool {
  return definition as unknown as McpTool;
}

const TaskRef = z.object({ taskId: z.uuid().describe('The task’s id (from search_tasks or get_task)') });
const FormRef = z.object({ formId: z.uuid().describe('The form’s id (from list_forms)') });
const Empty = z.object({});

/** Moscow time of day for a `schedule` automation, as the REST contract has it in `triggerConfig`. */
const triggerNote =
  'Triggers: "task.status_changed" with triggerConfig {statusId?, formId?} (runs after a task moves to that status), ' +
  'or "schedule" with triggerConfig {time: "HH:MM"} (runs daily at that Moscow time). The code is JavaScript run in a ' +
  'sandbox with `ctx` (ctx.task, ctx.trigger, await ctx.findTasks({formId, statusId, limit}), ' +
  'await ctx.updateFields(taskId?, {fieldId: value}), await ctx.transition(taskId?, statusId, comment?), ' +
  'await ctx.comment(taskId?, text), await ctx.createTask({formId, title, fields}), ctx.log(...)). ' +
  'An automation acts with an administrator’s rights.';

/**
 * The MCP tools, each through the same services as REST, as the key's bot: what the key's forms and
 * directories leave out is "not found", what its mode forbids is refused by the services too.
 */
export const mcpTools: McpTool[] = [
  tool({
    name: 'get_organization_context',
    title: 'Organization context',
    description:
      'Start here. The organization’s name, what this key may do (mode, forms, directories) and the forms and ' +
      'directories it reaches, with their ids, fields, statuses and columns.',
    needs: 'read',
    input: Empty,
    async run(deps, bot) {
      const organization = await organizations.getOrganization(deps, bot);
      const formList = await forms.listForms(deps, bot);
      const directoryList = await directories.listDirectories(deps, bot);
      return {
        organization: { id: organization.id, name: organization.name },
        key: bot.scopes,
        forms: formList.items,
        directories: directoryList.items,
      };
    },
  }),
  tool({
    name: 'list_forms',
    title: 'List forms',
    description: 'Forms (task types) this key reaches: id, name, fields with their ids and types, statuses.',
    needs: 'read',
    input: Empty,
    run: (deps, bot) => forms.listForms(deps, bot),
  }),
  tool({
    name: 'get_form',
    title: 'Get a form',
    description:
      'One form with its fields (id, name, type, required), statuses (id, name, initial, final) and allowed transitions.',
    needs: 'read',
    input: FormRef,
    async run(deps, bot, { formId }) {
      return { form: await forms.getForm(deps, bot, formId), workflow: await forms.getWorkflow(deps, bot, formId) };
    },
  }),
  tool({
    name: 'search_tasks',
    title: 'Search tasks',
    description:
      'Finds tasks: by text in the title or description (`query`), or lists them filtered by form, status or ' +
      'assignee, newest change first. Returns each task with its field values, status and assignees.',
    needs: 'read',
    input: z.object({
      query: z.string().trim().min(1).max(200).optional().describe('Text to find in title or description'),
      formId: z.uuid().optional(),
      statusId: z.uuid().optional(),
      assigneeId: z.uuid().optional().describe('A user id'),
      limit: z.number().int().min(1).max(100).default(20),
    }),
    async run(deps, bot, input) {
      if (input.query) return tasks.searchTasks(deps, bot, input.query, input.limit);
      const { query: _query, ...filter } = input;
      return tasks.listTasks(deps, bot, filter);
    },
  }),
  tool({
    name: 'get_task',
    title: 'Get a task',
    description: 'One task: title, description, status, field values by field id, assignees, dates.',
    needs: 'read',
    input: TaskRef,
    run: (deps, bot, { taskId }) => tasks.getTask(deps, bot, taskId),
  }),
  tool({
    name: 'create_task',
    title: 'Create a task',
    description:
      'Creates a task in a form. `fields` maps field ids (see get_form) to values: text, numbers as strings or ' +
      'numbers, dates YYYY-MM-DD, users as "user:<id>" or "role:<id>", directory rows by row id.',
    needs: 'write',
    input: CreateTaskRequest.omit({ id: true }),
    run: (deps, bot, input) => tasks.createTask(deps, bot, input),
  }),
  tool({
    name: 'update_task_fields',
    title: 'Update a task',
    description:
      'Changes a task’s title, description or field values (only those given; `fields` by field id, a value null clears it).',
    needs: 'write',
    input: TaskRef.extend(UpdateTaskRequest.shape),
    run: (deps, bot, { taskId, ...patch }) => tasks.updateTask(deps, bot, taskId, patch),
  }),
  tool({
    name: 'transition_task',
    title: 'Move a task to a status',
    description:
      'Moves a task to another status along the form’s allowed transitions (see get_form), with an optional comment. ' +
      'Automations on the status fire as for a person’s move.',
    needs: 'write',
    input: TaskRef.extend(TransitionRequest.shape),
    run: (deps, bot, { taskId, ...input }) => tasks.executeTaskTransition(deps, bot, taskId, input),
  }),
  tool({
    name: 'add_comment',
    title: 'Comment on a task',
    description: 'Posts a message in the task’s chat, as the bot.',
    needs: 'write',
    input: TaskRef.extend({ text: PostMessageRequest.shape.body }),
    run: (deps, bot, { taskId, text }) => activity.postMessage(deps, bot, taskId, { body: text, mentions: [] }),
  }),
  tool({
    name: 'list_directories',
    title: 'List directories',
    description: 'Reference tables (directories) this key reaches: id, name, columns.',
    needs: 'read',
    input: Empty,
    run: (deps, bot) => directories.listDirectories(deps, bot),
  }),
  tool({
    name: 'list_directory_rows',
    title: 'List directory rows',
    description:
      'Rows of a directory (cells in column order), optionally filtered by text in any cell (`q`); pages with `cursor`.',
    needs: 'read',
    input: z.object({ directoryId: z.uuid() }).extend(RowListQuery.omit({ sort: true }).shape),
    run: (deps, bot, { directoryId, ...query }) => rows.listRows(deps, bot, directoryId, query),
  }),
  tool({
    name: 'create_automation',
    title: 'Create an automation',
    description: `Creates an automation of the organization. ${triggerNote}`,
    needs: 'full',
    input: CreateAutomationRequest,
    run: (deps, bot, input) => automations.createAutomation(deps, bot, input),
  }),
  tool({
    name: 'update_automation',
    title: 'Change an automation',
    description: `Changes an automation (only the parts given). ${triggerNote}`,
    needs: 'full',
    input: z.object({ automationId: z.uuid() }).extend(UpdateAutomationRequest.shape),
    run: (deps, bot, { automationId, ...patch }) => automations.updateAutomation(deps, bot, automationId, patch),
  }),
];
