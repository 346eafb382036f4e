// A real SMTP server on loopback (smtp-server, the Nodemailer project's) that keeps what it
// receives, parsed by mailparser, for tests of the messages the service sends (src/mail/).
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { mailSettings } from '../../src/config/mail.js';
import { type MailSender, startMailSender } from '../../src/mail/sender.js';
import type { TestServer } from './server.js';

export interface TestSmtp {
  /** SMTP_URL for the service. */
  url: string;
  received: ParsedMail[];
  /** The first message received to `to` whose subject starts with `subject`, waited for. */
  next(to: string, subject: string): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: ParsedMail[] = [];
  const taken = new Set<ParsedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const recipient = (mail: ParsedMail) =>
    (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) => a.value.map((v) => v.address));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async next(to, subject) {
      const deadline = Date.now() + 5000;
      for (;;) {
        const mail = received.find(
          (m) => !taken.has(m) && recipient(m).includes(to) && (m.subject ?? '').startsWith(subject),
        );
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() > deadline) {
          const seen = received.map((m) => `${recipient(m).join(',')}: ${m.subject}`).join('\n');
          throw new Error(`no message "${subject}" to ${to} within 5 s; received:\n${seen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The service's mail sender beside a test server, polling often; any failure thrown for the test to see. */
export function startTestSender(s: TestServer, smtpUrl: string | undefined): MailSender {
  return startMailSender(
    s.db,
    {
      urls: { site: s.origin, root: `${s.origin}/wp-json`, base: s.base },
      mail: mailSettings(smtpUrl ? { SMTP_URL: smtpUrl } : {}, undefined),
      pollMs: 30,
      retryBaseMs: 20,
    },
    (err) => {
      throw err;
    },
  );
}
