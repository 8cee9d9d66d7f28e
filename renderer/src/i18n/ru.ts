import * as directories from '../pages/directories/strings';
import * as formEditor from '../pages/form-editor/strings';
import * as profile from '../pages/profile/strings';
import * as settings from '../pages/settings/strings';

/** Russian strings; `en.ts` must have the same keys (the type checks it). */
export const ru = {
  app: { name: 'Orbita', signOut: 'Выйти', language: 'Язык' },
  signIn: {
    title: 'Вход в Orbita',
    email: 'Эл. почта',
    password: 'Пароль',
    submit: 'Войти',
    noAccount: 'Нет организации?',
    register: 'Зарегистрировать',
    failed: 'Не удалось войти',
  },
  register: {
    title: 'Новая организация',
    organization: 'Название организации',
    name: 'Ваше имя',
    submit: 'Создать организацию',
    haveAccount: 'Уже есть учётная запись?',
    signIn: 'Войти',
    failed: 'Не удалось зарегистрироваться',
  },
  home: {
    welcome: 'Здравствуйте, {{name}}',
    organization: 'Организация',
    onboarding: 'С чего начать',
    steps: { form: 'Создайте форму', colleagues: 'Пригласите коллег', task: 'Создайте первую задачу' },
    done: 'Готово',
    todo: 'Не сделано',
    loading: 'Загрузка…',
    recent: 'Недавно просмотренные',
    noRecent: 'Вы ещё не открывали задачи',
    inbox: 'Входящие',
    noInbox: 'Ничего не требует вашего внимания',
    filters: { all: 'Все', assigned: 'Назначено мне', mentioned: 'Упоминания', substitution: 'Замещение' },
    reasons: {
      assigned: 'назначено',
      mentioned: 'упоминание',
      delegation: 'замещение',
      delegation_review: 'замещение: ознакомиться',
    },
  },
  nav: {
    home: 'Главная',
    forms: 'Формы',
    tasks: 'Задачи',
    directories: 'Справочники',
    settings: 'Настройки',
    profile: 'Профиль',
  },
  forms: {
    title: 'Формы',
    name: 'Название',
    fields: 'Полей',
    statuses: 'Статусы',
    empty: 'Форм пока нет. Администратор создаёт их в настройках.',
  },
  tasks: {
    title: 'Задачи',
    form: 'Форма',
    allForms: 'Все формы',
    search: 'Поиск по названию и описанию',
    create: 'Новая задача',
    taskTitle: 'Название задачи',
    description: 'Описание',
    status: 'Статус',
    updated: 'Изменена',
    empty: 'Задач нет',
    created: 'Задача создана',
    save: 'Создать',
    cancel: 'Отмена',
  },
  task: {
    fields: 'Поля',
    save: 'Сохранить',
    saved: 'Сохранено',
    moveTo: 'Перевести в статус',
    history: 'История изменений',
    audit: 'Журнал действий',
    actions: {
      created: 'создана',
      updated: 'изменена',
      status_changed: 'смена статуса',
      assignee_added: 'назначен исполнитель',
      assignee_removed: 'снят исполнитель',
      deleted: 'удалена',
    },
    chat: 'Обсуждение',
    send: 'Отправить',
    message: 'Сообщение',
    noHistory: 'Изменений пока нет',
    noMessages: 'Сообщений пока нет',
    back: 'К списку задач',
    assignees: 'Исполнители',
    users: 'Пользователи',
    roles: 'Роли',
    noAssignees: 'Исполнителей нет',
  },
  directories: directories.ru,
  formEditor: formEditor.ru,
  settings: settings.ru,
  profile: profile.ru,
  errors: { network: 'Сервер недоступен. Проверьте подключение и повторите.', required: 'Заполните поле' },
};

/** The shape every language provides. */
export type Strings = {
  [K in keyof typeof ru]: {
    [L in keyof (typeof ru)[K]]: (typeof ru)[K][L] extends string ? string : Record<string, string>;
  };
};
