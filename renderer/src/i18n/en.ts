import type { Strings } from './ru';

export const en: Strings = {
  app: { name: 'Orbita', signOut: 'Sign out', language: 'Language' },
  signIn: {
    title: 'Sign in to Orbita',
    email: 'E-mail',
    password: 'Password',
    submit: 'Sign in',
    noAccount: 'No organization yet?',
    register: 'Register one',
    failed: 'Could not sign in',
  },
  register: {
    title: 'New organization',
    organization: 'Organization name',
    name: 'Your name',
    submit: 'Create the organization',
    haveAccount: 'Already have an account?',
    signIn: 'Sign in',
    failed: 'Could not register',
  },
  home: {
    welcome: 'Hello, {{name}}',
    organization: 'Organization',
    onboarding: 'Getting started',
    steps: { form: 'Create a form', colleagues: 'Invite colleagues', task: 'Create the first task' },
    done: 'Done',
    todo: 'To do',
    loading: 'Loading…',
  },
  errors: {
    network: 'The server cannot be reached. Check the connection and try again.',
    required: 'Fill in this field',
  },
};
