/**
 * The demo data of `gateway dev`'s stand-ins for the examples' upstream APIs: the weather
 * service, the GitHub REST API and Google Cloud's Resource Manager and Storage APIs, each at the
 * paths and in the shapes the example tools read. Every name, headline and description says it is
 * demo data, so nobody mistakes an answer for the real service's.
 */

/** A JSON answer of a stand-in route. */
export interface DemoReply {
  status: number;
  body: unknown;
}

/** One request to a stand-in API, its body parsed as JSON when there is one. */
export interface DemoRequest {
  method: string;
  /** The path below the API's prefix, e.g. `/v1/forecast` for `/weather/v1/forecast`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The stand-ins' base URL, for links in the answers. */
  baseUrl: string;
}

const DEMO = '(demo data from gateway dev, not the real service)';
const SUMMARIES = ['Sunny', 'Partly cloudy', 'Showers', 'Overcast', 'Snow', 'Windy', 'Clear'];

/** A small number from the text, so one city always gets the same forecast. */
function seed(text: string): number {
  let hash = 0;
  for (const char of text.toLowerCase()) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 9973;
  return hash;
}

const isoDay = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

function weather(request: DemoRequest): DemoReply {
  const city = request.query.get('city')?.trim() ?? '';
  if (city === '') return { status: 400, body: { error: 'city is required' } };
  const name = `${city} ${DEMO}`;
  if (request.method === 'GET' && request.path === '/v1/forecast') {
    const days = Math.min(Math.max(Number(request.query.get('days') ?? 3) || 3, 1), 7);
    const base = seed(city);
    const daily = Array.from({ length: days }, (_, day) => {
      const high = ((base + day * 3) % 25) - 2;
      return {
        date: isoDay(day),
        summary: SUMMARIES[(base + day) % SUMMARIES.length] ?? 'Clear',
        high_c: high,
        low_c: high - 6,
        precipitation_chance: ((base + day * 17) % 10) / 10,
      };
    });
    return { status: 200, body: { city: name, daily } };
  }
  if (request.method === 'GET' && request.path === '/v1/alerts') {
    return {
      status: 200,
      body: {
        city: name,
        alerts: [
          {
            id: 'demo-alert-1',
            severity: 'moderate',
            headline: `Demo alert for ${city}: strong wind ${DEMO}`,
            starts_at: `${isoDay(0)}T06:00:00Z`,
            ends_at: null,
          },
        ],
      },
    };
  }
  return notFound();
}

let issueNumber = 0;

function github(request: DemoRequest): DemoReply {
  const { method, path } = request;
  if (method === 'GET' && path === '/user/repos') {
    const repo = (name: string, isPrivate: boolean) => ({
      full_name: `demo-user/${name}`,
      private: isPrivate,
      description: `A demo repository ${DEMO}`,
      html_url: `${request.baseUrl}/github/demo-user/${name}`,
      default_branch: 'main',
      updated_at: `${isoDay(0)}T09:00:00Z`,
    });
    const visibility = request.query.get('visibility') ?? 'all';
    const repos = [repo('hello-gateway', false), repo('private-notes', true)].filter(
      (r) => visibility === 'all' || r.private === (visibility === 'private'),
    );
    return { status: 200, body: repos };
  }
  const issue = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(path);
  if (method === 'POST' && issue) {
    const title = (request.body as { title?: unknown } | undefined)?.title;
    if (typeof title !== 'string' || title.trim() === '') {
      return { status: 422, body: { message: 'Validation Failed', errors: [{ code: 'missing' }] } };
    }
    issueNumber += 1;
    return {
      status: 201,
      body: {
        number: issueNumber,
        html_url: `${request.baseUrl}/github/${issue[1]}/${issue[2]}/issues/${issueNumber}`,
        title,
        state: 'open',
      },
    };
  }
  if (method === 'GET' && path === '/user') return { status: 200, body: DEMO_USER };
  return notFound();
}

function cloud(request: DemoRequest): DemoReply {
  if (request.method === 'GET' && request.path === '/v3/projects:search') {
    return {
      status: 200,
      body: {
        projects: [
          {
            name: 'projects/100000000001',
            projectId: 'demo-project',
            displayName: `Demo project ${DEMO}`,
            state: 'ACTIVE',
            parent: 'organizations/100000000000',
          },
        ],
      },
    };
  }
  if (request.method === 'GET' && request.path === '/storage/v1/b') {
    const project = request.query.get('project') ?? 'demo-project';
    return {
      status: 200,
      body: {
        items: [
          {
            name: `${project}-demo-bucket`,
            location: 'EU',
            storageClass: 'STANDARD',
            timeCreated: `${isoDay(-30)}T12:00:00Z`,
          },
        ],
      },
    };
  }
  return notFound();
}

/** Who the demo OAuth provider signs in, and GitHub's `/user` answers. */
export const DEMO_USER = {
  sub: 'demo-user',
  id: 100001,
  login: 'demo-user',
  name: 'Demo user (gateway dev stand-in)',
  email: 'demo-user@stand-in.localhost',
  email_verified: false,
};

function notFound(): DemoReply {
  return { status: 404, body: { message: 'Not Found (gateway dev demo stand-in)' } };
}

/** The stand-in APIs by path prefix. */
export const DEMO_APIS: Readonly<Record<string, (request: DemoRequest) => DemoReply>> = {
  weather,
  github,
  cloud,
};
