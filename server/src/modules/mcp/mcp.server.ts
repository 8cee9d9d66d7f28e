import { McpServer } from '@modelcontextprotocol/server';
import type { BotActor } from '../../platform/auth/actor';
import type { UnitDeps } from '../../platform/db/unit-of-work';
import { Problem } from '../../platform/http/problem';
import { VERSION } from '../../platform/version';
import { refuseWhileBlocked } from '../billing/billing.guard';
import { mcpTools, offered } from './mcp.tools';

/** A tool's answer: JSON text an agent reads (and the same object as structured content). */
function answer(value: unknown) {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value);
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(value ?? null) }],
    ...(structured ? { structuredContent: value as Record<string, unknown> } : {}),
  };
}

/** A refused call as the tool's error result, in the words the REST problem has (naming the target). */
function refusal(error: unknown) {
  if (!(error instanceof Problem)) throw error;
  const body = error.toBody(undefined) as {
    detail?: string;
    code?: string;
    errors?: { pointer: string; detail: string }[];
  };
  const fields = (body.errors ?? []).map((e) => `${e.pointer.replace('#/', '')}: ${e.detail}`);
  const text = [body.detail ?? error.message, ...fields].join('\n');
  return { isError: true, content: [{ type: 'text' as const, text: `${text} (${body.code ?? 'refused'})` }] };
}

/**
 * The MCP server for one request of `bot`'s key: only the tools its mode allows are offered (a read
 * key sees no writing tool); each runs through the services as the bot.
 */
export function mcpServerFor(deps: UnitDeps, bot: BotActor): McpServer {
  const server = new McpServer({ name: 'orbita', title: 'Orbita', version: VERSION });
  for (const tool of mcpTools) {
    if (!offered(bot.scopes.mode, tool.needs)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: tool.needs === 'read' },
      },
      async (input: unknown) => {
        try {
          if (tool.needs !== 'read') await refuseWhileBlocked(deps.db, bot.organizationId);
          return answer(await tool.run(deps, bot, input as never));
        } catch (error) {
          return refusal(error);
        }
      },
    );
  }
  return server;
}
