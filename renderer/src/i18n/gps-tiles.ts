import type { Shape } from './shape';

/** Strings of the map's area pre-download for offline use (i18n section `gpsTiles`). */
export const ru = {
  open: 'Скачать район для работы без сети',
  title: 'Район карты для работы без сети',
  explainDesktop:
    'Плитки берутся только с собственного сервера плиток организации и сохраняются на этом компьютере (не более {{limit}} МБ; давно не использованные вытесняются).',
  explainBrowser:
    'Плитки берутся только с собственного сервера плиток организации и сохраняются в этом браузере (не более {{limit}} плиток; давно не использованные вытесняются).',
  west: 'Запад',
  south: 'Юг',
  east: 'Восток',
  north: 'Север',
  minZoom: 'Масштаб от',
  maxZoom: 'Масштаб до',
  fromView: 'Как на карте',
  estimate: 'Оценить объём',
  estimated: 'Плиток: {{count}}, около {{size}} МБ (в среднем {{average}} КБ на плитку)',
  start: 'Скачать',
  progress: 'Скачано {{done}} из {{total}} плиток, {{size}} МБ',
  cancel: 'Отменить',
  finished: 'Сохранено плиток: {{done}} из {{total}}, {{size}} МБ',
  cancelled: 'Скачивание отменено: сохранено {{done}} из {{total}} плиток, {{size}} МБ',
  failed: 'Не удалось скачать плиток: {{count}}',
  sourceUnreadable: 'Сервер плиток организации не ответил; проверьте сеть и адрес в настройках GPS',
  tooBig: {
    desktop: 'Район больше кэша плиток этого компьютера: первые плитки будут вытеснены последними.',
    browser: 'Плиток больше, чем хранит браузер: первые будут вытеснены последними. Выберите район меньше.',
  },
};

export const en: Shape<typeof ru> = {
  open: 'Download an area for offline use',
  title: 'A map area for offline use',
  explainDesktop:
    'Tiles come only from the organization’s own tile server and are kept on this computer (at most {{limit}} MB; the least recently used are dropped).',
  explainBrowser:
    'Tiles come only from the organization’s own tile server and are kept in this browser (at most {{limit}} tiles; the least recently used are dropped).',
  west: 'West',
  south: 'South',
  east: 'East',
  north: 'North',
  minZoom: 'Zoom from',
  maxZoom: 'Zoom to',
  fromView: 'As on the map',
  estimate: 'Estimate the size',
  estimated: '{{count}} tiles, about {{size}} MB ({{average}} KB a tile on average)',
  start: 'Download',
  progress: '{{done}} of {{total}} tiles downloaded, {{size}} MB',
  cancel: 'Cancel',
  finished: '{{done}} of {{total}} tiles kept, {{size}} MB',
  cancelled: 'Download cancelled: {{done}} of {{total}} tiles kept, {{size}} MB',
  failed: '{{count}} tiles could not be downloaded',
  sourceUnreadable:
    'The organization’s tile server did not answer; check the network and the address in the GPS settings',
  tooBig: {
    desktop: 'The area is larger than this computer’s tile cache: its first tiles will be dropped for its last.',
    browser:
      'The area has more tiles than the browser keeps: its first will be dropped for its last. Choose a smaller area.',
  },
};
