import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config';
import { newId } from '../ids';
import type { Logger } from '../logging';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** A message written to the local outbox. */
export interface OutboxMessage extends Mail {
  id: string;
  from: string;
  createdAt: string;
}

export interface Mailer {
  /** `smtp` sends through SMTP_URL; `outbox` writes files under DATA_DIR/outbox. */
  readonly transport: 'smtp' | 'outbox';
  send(mail: Mail): Promise<void>;
}

export function outboxDirectory(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

/**
 * E-mail through SMTP when SMTP_URL is set; otherwise every message is written to the outbox
 * directory (an `.eml` the operator can open and a `.json` beside it), so nothing is lost silently.
 */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, logger: Logger): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      transport: 'smtp',
      async send(mail) {
        await transport.sendMail({ from: config.mailFrom, ...mail });
        logger.info({ to: mail.to, subject: mail.subject }, 'e-mail sent');
      },
    };
  }
  const directory = outboxDirectory(config.dataDir);
  const writer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    transport: 'outbox',
    async send(mail) {
      const id = newId();
      const info = await writer.sendMail({ from: config.mailFrom, ...mail });
      await mkdir(directory, { recursive: true });
      const message: OutboxMessage = { id, from: config.mailFrom, createdAt: new Date().toISOString(), ...mail };
      await writeFile(path.join(directory, `${id}.eml`), info.message as Buffer);
      await writeFile(path.join(directory, `${id}.json`), JSON.stringify(message, null, 2));
      logger.info(
        { to: mail.to, subject: mail.subject, file: path.join(directory, `${id}.eml`) },
        'e-mail written to the outbox (SMTP_URL is not set)',
      );
    },
  };
}

/** Messages in the outbox, oldest first. */
export async function readOutbox(dataDir: string): Promise<OutboxMessage[]> {
  const directory = outboxDirectory(dataDir);
  const names = await readdir(directory).catch(() => [] as string[]);
  const messages = await Promise.all(
    names
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map(async (name) => JSON.parse(await readFile(path.join(directory, name), 'utf8')) as OutboxMessage),
  );
  return messages;
}
