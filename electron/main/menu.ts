import type { DesktopLanguage } from '@shared/desktop/bridge';
import type { MenuItemTemplate } from './electron-api';

const ru = {
  file: 'Файл',
  edit: 'Правка',
  view: 'Вид',
  window: 'Окно',
  help: 'Справка',
  profile: 'Профиль',
  settings: 'Настройки',
  close: 'Закрыть окно',
  quit: 'Выход',
  undo: 'Отменить',
  redo: 'Повторить',
  cut: 'Вырезать',
  copy: 'Копировать',
  paste: 'Вставить',
  selectAll: 'Выделить всё',
  home: 'Главная',
  tasks: 'Задачи',
  forms: 'Формы',
  directories: 'Справочники',
  reload: 'Перезагрузить',
  forceReload: 'Перезагрузить без кэша',
  developerTools: 'Инструменты разработчика',
  actualSize: 'Исходный масштаб',
  zoomIn: 'Увеличить',
  zoomOut: 'Уменьшить',
  fullScreen: 'Во весь экран',
  minimize: 'Свернуть',
  zoom: 'Масштабировать окно',
  front: 'Все окна — на передний план',
  apiDocs: 'Документация API',
  about: (name: string) => `О программе ${name}`,
  services: 'Службы',
  hide: (name: string) => `Скрыть ${name}`,
  hideOthers: 'Скрыть остальные',
  showAll: 'Показать все',
  quitApp: (name: string) => `Завершить ${name}`,
};

const en: typeof ru = {
  file: 'File',
  edit: 'Edit',
  view: 'View',
  window: 'Window',
  help: 'Help',
  profile: 'Profile',
  settings: 'Settings',
  close: 'Close Window',
  quit: 'Exit',
  undo: 'Undo',
  redo: 'Redo',
  cut: 'Cut',
  copy: 'Copy',
  paste: 'Paste',
  selectAll: 'Select All',
  home: 'Home',
  tasks: 'Tasks',
  forms: 'Forms',
  directories: 'Directories',
  reload: 'Reload',
  forceReload: 'Force Reload',
  developerTools: 'Developer Tools',
  actualSize: 'Actual Size',
  zoomIn: 'Zoom In',
  zoomOut: 'Zoom Out',
  fullScreen: 'Toggle Full Screen',
  minimize: 'Minimize',
  zoom: 'Zoom',
  front: 'Bring All to Front',
  apiDocs: 'API Documentation',
  about: (name: string) => `About ${name}`,
  services: 'Services',
  hide: (name: string) => `Hide ${name}`,
  hideOthers: 'Hide Others',
  showAll: 'Show All',
  quitApp: (name: string) => `Quit ${name}`,
};

export const MENU_LABELS: Record<DesktopLanguage, typeof ru> = { ru, en };

export interface MenuOptions {
  language: DesktopLanguage;
  platform: string;
  appName: string;
  serverUrl: string;
  /** Adds the developer tools item (development builds). */
  developerTools: boolean;
  /** Opens an app path in the window (`/tasks`). */
  navigate(path: string): void;
  openExternal(url: string): void;
}

const separator: MenuItemTemplate = { type: 'separator' };

/**
 * The application menu: File, Edit, View, Window, Help (after the app menu on macOS), labelled in
 * the interface language. Standard actions use Electron roles so they keep the OS's behaviour.
 */
export function buildMenuTemplate(options: MenuOptions): MenuItemTemplate[] {
  const label = MENU_LABELS[options.language];
  const mac = options.platform === 'darwin';
  const go = (path: string) => () => options.navigate(path);

  const appMenu: MenuItemTemplate = {
    label: options.appName,
    submenu: [
      { role: 'about', label: label.about(options.appName) },
      separator,
      { role: 'services', label: label.services },
      separator,
      { role: 'hide', label: label.hide(options.appName) },
      { role: 'hideOthers', label: label.hideOthers },
      { role: 'unhide', label: label.showAll },
      separator,
      { role: 'quit', label: label.quitApp(options.appName) },
    ],
  };
  const file: MenuItemTemplate = {
    label: label.file,
    submenu: [
      { label: label.profile, click: go('/profile') },
      { label: label.settings, accelerator: 'CmdOrCtrl+,', click: go('/settings') },
      separator,
      mac ? { role: 'close', label: label.close } : { role: 'quit', label: label.quit },
    ],
  };
  const edit: MenuItemTemplate = {
    label: label.edit,
    submenu: [
      { role: 'undo', label: label.undo },
      { role: 'redo', label: label.redo },
      separator,
      { role: 'cut', label: label.cut },
      { role: 'copy', label: label.copy },
      { role: 'paste', label: label.paste },
      { role: 'selectAll', label: label.selectAll },
    ],
  };
  const view: MenuItemTemplate = {
    label: label.view,
    submenu: [
      { label: label.home, accelerator: 'CmdOrCtrl+1', click: go('/') },
      { label: label.tasks, accelerator: 'CmdOrCtrl+2', click: go('/tasks') },
      { label: label.forms, accelerator: 'CmdOrCtrl+3', click: go('/forms') },
      { label: label.directories, accelerator: 'CmdOrCtrl+4', click: go('/directories') },
      separator,
      { role: 'reload', label: label.reload },
      { role: 'forceReload', label: label.forceReload },
      ...(options.developerTools ? [{ role: 'toggleDevTools', label: label.developerTools }] : []),
      separator,
      { role: 'resetZoom', label: label.actualSize },
      { role: 'zoomIn', label: label.zoomIn },
      { role: 'zoomOut', label: label.zoomOut },
      separator,
      { role: 'togglefullscreen', label: label.fullScreen },
    ],
  };
  const window: MenuItemTemplate = {
    label: label.window,
    // On macOS the 'window' role makes it the menu that lists the open windows.
    ...(mac ? { role: 'window' } : {}),
    submenu: mac
      ? [
          { role: 'minimize', label: label.minimize },
          { role: 'zoom', label: label.zoom },
          separator,
          { role: 'front', label: label.front },
        ]
      : [
          { role: 'minimize', label: label.minimize },
          { role: 'close', label: label.close },
        ],
  };
  const help: MenuItemTemplate = {
    label: label.help,
    role: 'help',
    submenu: [
      { label: label.apiDocs, click: () => options.openExternal(`${options.serverUrl}/api/docs`) },
      ...(mac ? [] : [separator, { role: 'about', label: label.about(options.appName) }]),
    ],
  };
  return mac ? [appMenu, file, edit, view, window, help] : [file, edit, view, window, help];
}
