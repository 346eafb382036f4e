// Mail (src/mail/): the SMTP server messages go through, who they come from, and how many
// confirmation messages one address may be sent a day. Without SMTP_URL no message is sent, and
// RSVP without an account, which needs one, is off.
import { ConfigError, positiveInteger } from './read.js';

export interface MailSettings {
  /** smtp:// or smtps:// with credentials if any (nodemailer's connection URL); undefined: no mail. */
  smtpUrl?: string;
  /** The From address (and the ORGANIZER of the invitations: src/mail/invitation.ts). */
  from: string;
  /** Confirmation messages one e-mail address may be sent a day (services/rsvps/anonymous.ts). */
  confirmationsPerDay: number;
  /** How long a confirmation link works. */
  confirmationHours: number;
}

export function mailSettings(env: NodeJS.ProcessEnv, publicUrl: string | undefined): MailSettings {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\/[^\s]+$/i.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL such as smtps://user:password@mail.example.org');
  }
  const host = publicUrl ? new URL(publicUrl).hostname : 'localhost';
  const from = env.MAIL_FROM || `Calendar <calendar@${host}>`;
  // A header's value: one line, with an address in it (nodemailer parses the rest).
  if (/[\r\n]/.test(from) || !from.includes('@')) {
    throw new ConfigError(`MAIL_FROM must be an address such as "Calendar <calendar@example.org>", got "${from}"`);
  }
  return {
    smtpUrl,
    from,
    confirmationsPerDay: positiveInteger(env, 'RSVP_CONFIRMATIONS_PER_DAY', 5),
    confirmationHours: positiveInteger(env, 'RSVP_CONFIRMATION_HOURS', 48),
  };
}
