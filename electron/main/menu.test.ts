import { describe, expect, it } from 'vitest';
import type { MenuItemTemplate } from './electron-api';
import { buildMenuTemplate, type MenuOptions } from './menu';

function template(overrides: Partial<MenuOptions> = {}) {
  const navigated: string[] = [];
  const opened: string[] = [];
  const menu = buildMenuTemplate({
    language: 'ru',
    platform: 'linux',
    appName: 'Orbita',
    serverUrl: 'http://192.168.1.10:3000',
    developerTools: false,
    navigate: (path) => navigated.push(path),
    openExternal: (url) => opened.push(url),
    ...overrides,
  });
  return { menu, navigated, opened };
}

function items(menu: MenuItemTemplate[]): MenuItemTemplate[] {
  return menu.flatMap((item) => [item, ...items(item.submenu ?? [])]);
}

function find(menu: MenuItemTemplate[], label: string): MenuItemTemplate {
  const item = items(menu).find((candidate) => candidate.label === label);
  if (!item) throw new Error(`No menu item "${label}"`);
  return item;
}

describe('application menu', () => {
  it('has File, Edit, View, Window and Help in Russian', () => {
    expect(template().menu.map((item) => item.label)).toEqual(['Файл', 'Правка', 'Вид', 'Окно', 'Справка']);
  });

  it('has the same menus in English', () => {
    expect(template({ language: 'en' }).menu.map((item) => item.label)).toEqual([
      'File',
      'Edit',
      'View',
      'Window',
      'Help',
    ]);
  });

  it('labels every item in the chosen language, standard roles included', () => {
    const russian = items(template().menu).filter((item) => item.type !== 'separator');
    const english = items(template({ language: 'en' }).menu).filter((item) => item.type !== 'separator');
    expect(russian.length).toBe(english.length);
    for (const [index, item] of russian.entries()) {
      expect(item.label, JSON.stringify(item)).toBeTruthy();
      expect(item.label, JSON.stringify(item)).not.toBe(english[index]?.label);
      expect(item.role).toBe(english[index]?.role);
    }
    expect(find(template().menu, 'Копировать').role).toBe('copy');
    expect(find(template({ language: 'en' }).menu, 'Copy').role).toBe('copy');
  });

  it('opens screens of the app from its items', () => {
    const { menu, navigated } = template();
    find(menu, 'Задачи').click?.();
    find(menu, 'Настройки').click?.();
    find(menu, 'Главная').click?.();
    expect(navigated).toEqual(['/tasks', '/settings', '/']);
    expect(find(menu, 'Настройки').accelerator).toBe('CmdOrCtrl+,');
  });

  it("opens the server's API documentation in the browser from Help", () => {
    const { menu, opened } = template();
    find(menu, 'Документация API').click?.();
    expect(opened).toEqual(['http://192.168.1.10:3000/api/docs']);
  });

  it('puts the app menu first on macOS, with Quit there rather than in File', () => {
    const { menu } = template({ platform: 'darwin', language: 'en' });
    expect(menu.map((item) => item.label)).toEqual(['Orbita', 'File', 'Edit', 'View', 'Window', 'Help']);
    expect(menu[0]?.submenu?.map((item) => item.role).filter(Boolean)).toContain('quit');
    expect(menu[1]?.submenu?.some((item) => item.role === 'quit')).toBe(false);
    expect(find(menu, 'Quit Orbita').role).toBe('quit');
    expect(template({ language: 'en' }).menu[0]?.submenu?.some((item) => item.role === 'quit')).toBe(true);
  });

  it('offers the developer tools only when asked to', () => {
    const hasDevTools = (menu: MenuItemTemplate[]) => items(menu).some((item) => item.role === 'toggleDevTools');
    expect(hasDevTools(template().menu)).toBe(false);
    expect(hasDevTools(template({ developerTools: true }).menu)).toBe(true);
  });
});
