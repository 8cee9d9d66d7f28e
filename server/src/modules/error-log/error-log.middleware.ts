import { STATUS_CODES } from 'node:http';
import type { RequestHandler } from 'express';
import type { BotActor } from '../../platform/auth/actor';
import type { AuthContext, TokenCaller } from '../../platform/auth/auth-context';
import type { UnitDeps } from '../../platform/db/unit-of-work';
import type { Problem } from '../../platform/http/problem';
import type { Logger } from '../../platform/logging';
import type { SyncFailure } from '../../platform/sync/sync-server';
import { isRecorded, recordError } from './error-log.service';

/**
 * Observes every response and, once it is sent, records those that belong in the error log. The
 * problem that was sent gives the code and message, the caller of a protected route the
 * organization and user. Recording never delays or fails the response: a failure is only logged.
 */
export function recordErrors(deps: UnitDeps): RequestHandler {
  return (req, res, next) => {
    // Taken before routing; the path never carries the query string, which may hold secrets.
    const { method, path } = req;
    res.on('finish', () => {
      const status = res.statusCode;
      if (!isRecorded(path, status)) return;
      const problem = res.locals.problem as Problem | undefined;
      const auth = res.locals.auth as AuthContext | BotActor | TokenCaller | undefined;
      recordError(deps, {
        organizationId: auth?.organizationId ?? null,
        userId: auth?.kind === 'user' ? auth.userId : null,
        botId: auth?.kind === 'bot' ? auth.botId : null,
        method,
        path,
        status,
        code: problem?.code ?? null,
        message: problem?.message ?? STATUS_CODES[status] ?? `HTTP ${status}`,
        requestId: String(req.id),
      }).catch((error: unknown) => {
        req.log.error({ err: error, status, path }, 'the error could not be recorded in the error log');
      });
    });
    next();
  };
}

/**
 * Records sync messages answered with a problem as failed responses are recorded: the message's
 * event as the method (`PULL`, `PUSH`, `AUTH`) and `/sync/<collection>` as the path, with the
 * request id its acknowledgement carried. Recording never fails the sync: a failure is only logged.
 */
export function recordSyncFailures(deps: UnitDeps, logger: Logger): (failure: SyncFailure) => void {
  return (failure) => {
    const path = failure.collection === undefined ? '/sync' : `/sync/${failure.collection}`;
    const { status } = failure.problem;
    if (!isRecorded(path, status)) return;
    recordError(deps, {
      organizationId: failure.organizationId,
      userId: failure.userId,
      botId: null,
      method: failure.event.slice('sync:'.length).toUpperCase(),
      path,
      status,
      code: failure.problem.code,
      message: failure.problem.message,
      requestId: failure.requestId,
    }).catch((error: unknown) => {
      logger.error({ err: error, status, path }, 'the error could not be recorded in the error log');
    });
  };
}
