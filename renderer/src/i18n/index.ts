import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { desktopBridge } from '../desktop';
import { en } from './en';
import { ru } from './ru';

export type Language = 'ru' | 'en';

/** The interface languages, each named in itself (the same words whatever the interface language). */
export const LANGUAGES: { value: Language; label: string }[] = [
  { value: 'ru', label: 'Русский' },
  { value: 'en', label: 'English' },
];
const STORAGE_KEY = 'orbita.language';

/** The interface language: the one chosen before, else the browser's, else Russian. */
export function initialLanguage(): Language {
  const saved = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (saved === 'ru' || saved === 'en') return saved;
  return globalThis.navigator?.language?.startsWith('en') ? 'en' : 'ru';
}

export function setLanguage(language: Language): void {
  globalThis.localStorage?.setItem(STORAGE_KEY, language);
  void i18next.changeLanguage(language);
  document.documentElement.lang = language;
  // The desktop shell's menus follow the interface.
  desktopBridge()?.setLanguage(language);
}

void i18next.use(initReactI18next).init({
  resources: { ru: { translation: ru }, en: { translation: en } },
  lng: initialLanguage(),
  fallbackLng: 'ru',
  interpolation: { escapeValue: false },
});
desktopBridge()?.setLanguage(i18next.language === 'en' ? 'en' : 'ru');

/** Whether the user chose a language on this device (else the account's is taken at sign-in). */
export function languageChosen(): boolean {
  return Boolean(globalThis.localStorage?.getItem(STORAGE_KEY));
}

export { i18next };
