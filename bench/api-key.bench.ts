import { benchApp, benchDatabase, postJson, registerBenchAdmin, report, throughput } from './lib';

/**
 * Authentication by API key: `GET /api/tasks/:taskId` with a bot's key (`X-API-Key`: hash, one
 * lookup, scopes applied to visibility) against the same read with a user's access token (JWT
 * check and the per-request caller query). The ratio is the key's cost over the token's; aim ≤ 1.2x.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  const count = 3_000;
  const concurrency = 8;
  try {
    const registered = await registerBenchAdmin(url);
    const auth = { Authorization: `Bearer ${registered.accessToken}` };
    const form = await postJson(
      url,
      '/api/forms',
      { name: 'Deliveries', fields: [{ name: 'Note', type: 'text' }] },
      auth,
    );
    const task = await postJson(url, '/api/tasks', { formId: form.id, title: 'Parcel 1' }, auth);
    const bot = await postJson(
      url,
      '/api/bots',
      { name: 'Courier', apiAccess: { enabled: true, mode: 'write', formIds: [form.id] } },
      auth,
    );
    const keyHeaders = { 'X-API-Key': bot.apiKey.key as string };
    const read = (headers: Record<string, string>) => () =>
      fetch(`${url}/api/tasks/${task.id}`, { headers }).then((response) => {
        if (response.status !== 200) throw new Error(`GET /api/tasks/:taskId answered ${response.status}`);
        return response.arrayBuffer();
      });
    await throughput(300, concurrency, read(auth));
    await throughput(300, concurrency, read(keyHeaders));
    const withToken = await throughput(count, concurrency, read(auth));
    const withKey = await throughput(count, concurrency, read(keyHeaders));
    report('GET /api/tasks/:taskId with an API key vs with a user access token', withKey, withToken);
  } finally {
    await app.close();
    await database.drop();
  }
}
