// A HAL client of the Event Service written with ketting, as its
// documentation says: the password grant through @badgateway/oauth2-client's
// fetch middleware (which ketting's documentation names in place of its
// own, deprecated one), then every address read from links. eventsvctest/libraries_test.go runs
// it against a reference server and expects no client finding.
//
// Usage: node ketting.mjs BASE_URL CLIENT_ID CLIENT_SECRET USER PASSWORD [AUTH_METHOD]
//
// AUTH_METHOD is the token client's authenticationMethod: its default,
// client_secret_basic, or client_secret_post, which the server refuses.
import { Ketting } from 'ketting';
import { OAuth2Client, OAuth2Fetch } from '@badgateway/oauth2-client';

const [base, clientId, clientSecret, username, password, authenticationMethod] = process.argv.slice(2);
const oauth = new OAuth2Client({ clientId, clientSecret, tokenEndpoint: base + '/oauth/token', authenticationMethod });
// scheduleRefresh: false, or its timer, set to refresh the token before
// it expires, keeps the process alive for nine minutes.
const tokens = new OAuth2Fetch({ client: oauth, scheduleRefresh: false, getNewToken: () => oauth.password({ username, password }) });
const client = new Ketting(base + '/api');
client.use(tokens.mw());

const events = await client.go().follow('events');
const list = await events.get();
const event = {
  name: 'ketting', description: 'made by a HAL client',
  beginEnrollmentDateTime: '2030-01-01T10:00:00', closeEnrollmentDateTime: '2030-01-02T10:00:00',
  beginEventDateTime: '2030-01-03T10:00:00', endEventDateTime: '2030-01-04T10:00:00',
  location: 'Room 1', basePrice: 0, maxPrice: 0, limitOfEnrollment: 10,
};
const created = await list.follow('create-new-event').postFollow({ data: event });
const state = await created.get();
await state.follow('update-event').put({ data: { ...event, name: 'ketting, updated' } });
const first = list.links.get('get-an-event');
const one = await list.follow('get-an-event', { id: state.data.id }).get();
if (list.links.has('next')) {
  await list.follow('next').get();
}
console.log(`created and updated event ${one.data.id} (${one.data.name}), template ${first.href}`);
