import type { Mail } from '../../platform/mail/mailer';

type Locale = 'ru' | 'en';

/** The password-reset e-mail: the plain token appears only here, inside the link. */
export function resetPasswordMail(locale: Locale, to: string, link: string): Mail {
  if (locale === 'en') {
    return {
      to,
      subject: 'Reset your Orbita password',
      text: `Someone asked to reset the password of your Orbita account.\n\nSet a new password: ${link}\n\nThe link works once, within one hour. If it was not you, ignore this message.`,
    };
  }
  return {
    to,
    subject: 'Сброс пароля Orbita',
    text: `Кто-то запросил сброс пароля вашей учётной записи Orbita.\n\nЗадать новый пароль: ${link}\n\nСсылка действует один раз в течение часа. Если это были не вы, просто проигнорируйте письмо.`,
  };
}

/** The invitation e-mail with its set-password link. */
export function invitationMail(locale: Locale, to: string, organization: string, inviter: string, link: string): Mail {
  if (locale === 'en') {
    return {
      to,
      subject: `${inviter} invites you to ${organization} in Orbita`,
      text: `${inviter} invited you to work in ${organization} on Orbita.\n\nSet your password to join: ${link}\n\nThe link works once, within seven days.`,
    };
  }
  return {
    to,
    subject: `${inviter} приглашает вас в ${organization} в Orbita`,
    text: `${inviter} пригласил(а) вас работать в ${organization} в Orbita.\n\nЗадайте пароль, чтобы присоединиться: ${link}\n\nСсылка действует один раз в течение семи дней.`,
  };
}
