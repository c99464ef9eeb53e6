// The extractive answer model: quotes the passage that answers the question, code included, with its citations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatStreamPart, GroundingSnippet } from '../../src/providers/chat-model.js';
import type { EmbeddingModel } from '../../src/providers/embedding-model.js';
import { createExtractiveChatModel, noAnswer } from '../../src/providers/extractive-chat-model.js';

async function answer(
  query: string,
  snippets: (string | Omit<GroundingSnippet, 'number'>)[],
  embeddings?: EmbeddingModel,
): Promise<string> {
  const parts: ChatStreamPart[] = [];
  const stream = createExtractiveChatModel(embeddings).stream({
    messages: [],
    tools: [],
    grounding: {
      query,
      snippets: snippets.map((snippet, index) => ({ number: index + 1, ...(typeof snippet === 'string' ? { text: snippet } : snippet) })),
    },
  });
  for await (const part of stream) parts.push(part);
  assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'stop' });
  return parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('');
}

describe('extractive chat model', () => {
  describe('with an embedding model', () => {
    // Two passages that hold the same words of the question; only their meaning tells which one answers it.
    const question = 'is the cache cleared when the server stops?';
    const snippets = [
      '# Cache\n\nThe cache is kept on disk when the server stops.',
      '# Cache\n\nThe cache is emptied when the server stops.',
    ];
    // Texts about emptying point one way, the others another: the question and the second passage mean the same.
    const meaning: EmbeddingModel = {
      id: 'test-meaning',
      embed: async (texts) => texts.map((text) => (/emptied|cleared/.test(text) ? Float32Array.of(1, 0) : Float32Array.of(0, 1))),
    };

    it('leads with the passage whose meaning is closest to the question, where the words alone tie', async () => {
      assert.match(await answer(question, snippets), /^The cache is kept on disk/);
      assert.match(await answer(question, snippets, meaning), /^The cache is emptied when the server stops \[2\]\./);
    });

    it('answers by the words alone when the embedding model fails', async () => {
      const failing: EmbeddingModel = {
        id: 'test-down',
        embed: async () => {
          throw new Error('the provider is down');
        },
      };
      assert.equal(await answer(question, snippets, failing), await answer(question, snippets));
    });
  });

  it('quotes the passage that answers the question, with the number of its snippet', async () => {
    const text = await answer('how long are backups kept?', [
      '# Logging\n\nLogs are JSON lines.',
      '# Backups\n\nSnapshots are taken nightly. Backups are kept for thirty days before deletion.',
    ]);
    assert.match(text, /Backups are kept for thirty days before deletion \[2\]\./);
    assert.doesNotMatch(text, /JSON lines/);
  });

  it("leads with the passage's first sentence and keeps the code block that shows how", async () => {
    const text = await answer('how do I add a middleware?', [
      {
        title: 'Middleware',
        headingPath: ['Middleware', 'Create a middleware'],
        text: '## Create a middleware\n\nTo create a middleware you use the decorator `@app.middleware("http")` on top of a function. It receives the request.\n\n```python\n@app.middleware("http")\nasync def add_header(request, call_next):\n    return await call_next(request)\n```\n\nMore prose after the code.',
      },
    ]);
    assert.ok(text.startsWith('To create a middleware you use the decorator `@app.middleware("http")` on top of a function [1].'), text);
    assert.match(text, /```python\n@app\.middleware\("http"\)\nasync def add_header/);
    assert.match(text, /```\s*$/);
  });

  it('keeps a list together with the sentence that introduces it', async () => {
    const text = await answer('what does the middleware function receive?', [
      'The middleware function receives:\n\n* The `request`.\n* A function `call_next`.\n\nUnrelated closing words.',
    ]);
    assert.match(text, /The middleware function receives \[1\]:\n\n\* The `request`\.\n\* A function `call_next` \[1\]\./);
  });

  it('adds a second passage from another snippet when it covers the question nearly as well', async () => {
    const text = await answer('how do I set the cookie max age?', [
      'Set a cookie with `response.set_cookie()`. The max age is given in seconds.',
      'A cookie max age of zero deletes the cookie at once.',
    ]);
    assert.match(text, /\[1\]/);
    assert.match(text, /\[2\]/);
  });

  it('never shows doc-site syntax (admonitions, anchors, includes, HTML)', async () => {
    const text = await answer('how do I declare an optional query parameter?', [
      '## Optional parameters { #optional-parameters }\n\n/// tip\n\nYou can declare optional query parameters by setting their default to `None`, see <abbr title="also">the</abbr> [Query docs](query-params.md).\n\n///\n\n{* ../../docs_src/query_params/tutorial002_py310.py hl[9] *}',
    ]);
    assert.match(text, /You can declare optional query parameters by setting their default to `None`, see the Query docs \[1\]\./);
    assert.doesNotMatch(text, /\{ #|\/\/\/|\{\*|<abbr|\]\(query-params\.md\)/);
  });

  it('never leads with a paragraph that is a link alone', async () => {
    const text = await answer('how do I try the counter example in the playground?', [
      '# Counter\n\n[Try it in the Playground](https://play.example.com/#eNptUstO6zAQ)\n\nThe counter example increments on each click.',
    ]);
    assert.match(text, /^The counter example increments on each click \[1\]\./);
  });

  it('says so when nothing matches, citing nothing', async () => {
    assert.equal(await answer('kubernetes helm chart', ['# Billing\n\nInvoices are monthly.']), noAnswer);
  });
});

describe('extractive chat model, repeated and cut-off passages', () => {
  it('quotes a passage repeated on two pages once', async () => {
    const tip = 'To let a browser see custom headers, add them to your CORS configuration with `expose_headers`.';
    const text = await answer('how do I add custom headers to CORS?', [
      tip,
      `${tip} See the CORS page.`,
      'Custom headers use the `X-` prefix.',
    ]);
    assert.equal(text.match(/expose_headers/g)?.length, 1, text);
  });

  it('does not quote a sentence that introduces what the snippet cut off', async () => {
    const text = await answer('how do I return a 404 status?', [
      'Return a 404 with `HTTPException`, in short:',
      'Raise `HTTPException(status_code=404)` to return a 404 status.',
    ]);
    assert.doesNotMatch(text, /in short/);
    assert.match(text, /status_code=404/);
  });
});

describe('extractive chat model, passages across chunk edges', () => {
  it("quotes the code block that the text after the snippet holds, under the snippet's number", async () => {
    const text = await answer('how do I mount static files?', [
      {
        title: 'Static Files',
        headingPath: ['Static Files', 'Use StaticFiles'],
        text: '## Use StaticFiles\n\nTo serve a folder, mount an instance of `StaticFiles` at a path:',
        after: {
          text: '```python\napp.mount("/static", StaticFiles(directory="static"))\n```\n\nMore words.',
          headingPath: ['Static Files', 'Use StaticFiles'],
        },
      },
    ]);
    assert.match(text, /mount an instance of `StaticFiles` at a path \[1\]:\n\n```python\napp\.mount/);
  });

  it('leads a passage that describes the case with the sentence of its section that says how', async () => {
    const text = await answer('the docs fail behind my proxy that strips the prefix, what is missing?', [
      {
        title: 'Behind a Proxy',
        headingPath: ['Behind a Proxy', 'Stripped prefix'],
        text: '## Stripped prefix\n\nIn these cases you can use `root_path` to configure your application.\n\nIt is a mechanism of the ASGI specification.\n\nA proxy that strips the path prefix serves the app under `/api`, so the docs fail to load the schema.',
      },
    ]);
    assert.ok(text.startsWith('In these cases you can use `root_path` to configure your application [1].'), text);
    assert.match(text, /strips the path prefix/);
  });

  it('never quotes an admonition label, and skips a tab label to reach the code', async () => {
    const text = await answer('how do I declare a cookie parameter?', [
      '## Cookies\n\nDeclare a cookie parameter with `Cookie`, the same way as `Query`:\n\n**Python 3.10+**\n\n```python\nads_id: Annotated[str | None, Cookie()] = None\n```\n\n**Tip**\n\nCookies are declared like headers.',
    ]);
    assert.match(text, /the same way as `Query` \[1\]:\n\n```python\nads_id/);
    assert.doesNotMatch(text, /\*\*(Tip|Python 3\.10\+)\*\*/);
  });

  it('shows the tab the question names, under its label, and the first tab when it names none', async () => {
    const page =
      '## Shell autocompletion\n\nTo enable shell autocompletion for uv, run one of the following:\n\n**Bash**\n\n```bash\necho \'eval "$(uv generate-shell-completion bash)"\' >> ~/.bashrc\n```\n\n**Zsh**\n\n```bash\necho \'eval "$(uv generate-shell-completion zsh)"\' >> ~/.zshrc\n```';
    const zsh = await answer('how do I enable shell autocompletion for uv in zsh?', [page]);
    assert.match(zsh, /one of the following \[1\]:\n\n\*\*Zsh\*\*\n\n```bash\necho 'eval "\$\(uv generate-shell-completion zsh\)"'/);
    assert.doesNotMatch(zsh, /bashrc/);
    const any = await answer('how do I enable shell autocompletion for uv?', [page]);
    assert.match(any, /one of the following \[1\]:\n\n```bash\necho 'eval "\$\(uv generate-shell-completion bash\)"'/);
    // A word every tab's label shares ("mypy") chooses none of them.
    const config =
      "## Enabling the plugin\n\nTo enable the plugin, add `pydantic.mypy` to the plugins of your mypy config file:\n\n**`mypy.ini`**\n\n```ini\n[mypy]\nplugins = pydantic.mypy\n```\n\n**`pyproject.toml`**\n\n```toml\n[tool.mypy]\nplugins = ['pydantic.mypy']\n```";
    assert.match(await answer('how do I enable the mypy plugin in pyproject.toml?', [config]), /\*\*`pyproject\.toml`\*\*\n\n```toml/);
  });

  it('reaches the code a sentence shows across the file name that titles it', async () => {
    const text = await answer('how do I make a script executable?', [
      '## Using a shebang\n\nA shebang makes a script executable without typing `uv run` first.\n\nFor example, create a file called `greet` with the following contents\n\n**greet**\n\n```python\n#!/usr/bin/env -S uv run --script\nprint("Hello")\n```',
    ]);
    assert.match(
      text,
      /create a file called `greet` with the following contents \[1\]\.\n\n```python\n#!\/usr\/bin\/env -S uv run --script/,
    );
  });
  it('reads a paragraph a chunk boundary cut as one, so no passage starts mid-sentence', async () => {
    const snippet = {
      title: 'Behind a Proxy',
      headingPath: ['Behind a Proxy'],
      text: 'the original client request and adds the forwarded headers before passing it on.\n\nThese headers keep the client IP address that would otherwise be lost:\n\n* **X-Forwarded-For**: the client IP address',
    };
    const split = await answer('how do I get the client IP address behind a proxy?', [
      { ...snippet, before: { text: '# Behind a Proxy\n\nThe **proxy** intercepts', headingPath: ['Behind a Proxy'], splitBlock: ' ' } },
    ]);
    assert.match(split, /^The \*\*proxy\*\* intercepts the original client request and adds the forwarded headers/, split);
    // Without the mark, the halves are two blocks, and the passage starts after the fragment.
    const apart = await answer('how do I get the client IP address behind a proxy?', [
      { ...snippet, before: { text: '# Behind a Proxy\n\nThe **proxy** intercepts', headingPath: ['Behind a Proxy'] } },
    ]);
    assert.doesNotMatch(apart, /^the original/, apart);
  });

  it("reads a neighbour's text after the snippet, so a list item's code it starts with is not quoted as a sentence", async () => {
    const text = await answer('I set str_to_lower=True but the nested User name is not lowercased: does config apply to nested models?', [
      {
        title: 'Config',
        headingPath: ['Configuration propagation'],
        text: '## Configuration propagation\n\n* For stdlib types, configuration is propagated unless\n  the type has its own configuration set:',
        after: {
          text: '    ```python\n    @dataclass\n    @with_config(str_to_lower=False)\n    class User:\n        name: str\n    ```',
          headingPath: ['Configuration propagation'],
        },
      },
    ]);
    assert.doesNotMatch(text, /^@dataclass/m, text);
    assert.match(text, /configuration is propagated/, text);
  });

  it("cites a list where its prose ends, not on an item's label alone", async () => {
    const text = await answer('how do I disable attribute fallthrough with inheritAttrs?', [
      {
        title: 'Options: Misc',
        headingPath: ['Options: Misc', 'inheritAttrs'],
        text: '## inheritAttrs\n\nControls whether the default component attribute fallthrough behavior should be enabled.\n\n- **Details**\n\n  By setting `inheritAttrs` to `false`, this default attribute fallthrough behavior can be disabled.\n\n- **Example**\n\n  ```js\n  export default { inheritAttrs: false }\n  ```',
      },
    ]);
    assert.match(text, /behavior can be disabled \[1\]\.\n\n- \*\*Example\*\*\n/, text);
    assert.doesNotMatch(text, /\*\*Example\*\* \[1\]/, text);
  });

  it('ends a sentence as a statement when what it introduces is not there (code the site included from elsewhere)', async () => {
    const text = await answer('how do I read settings from a config file?', [
      {
        title: 'Settings',
        headingPath: ['Settings', 'Settings in another module'],
        text: '## Settings in another module\n\nFor example, you could have a file `config.py` that reads the settings with:\n\nAnd then use it in a file `main.py` to read the settings.',
      },
    ]);
    assert.match(text, /you could have a file `config\.py` that reads the settings with \[1\]\.\n\nAnd then use it/, text);
    // "The following ..." introduces prose too: its colon stays.
    const following = await answer('which options are read from the settings file?', [
      '# Settings\n\nThe following options are read from the settings file:\n\nThe name of the app, and the admin email.',
    ]);
    assert.match(following, /read from the settings file \[1\]:\n\nThe name of the app/, following);
  });

  it('quotes a block once when two snippets reach it', async () => {
    const shared = 'Use `dependency_overrides` to replace a dependency in tests.';
    const text = await answer('how do I replace a dependency in tests?', [
      { text: `# Testing\n\n${shared}`, title: 'Testing' },
      { text: '# Testing\n\nOverrides are reset with `clear()`.', title: 'Testing', before: { text: shared, headingPath: ['Testing'] } },
    ]);
    assert.equal(text.split('`dependency_overrides`').length - 1, 1, text);
  });
});

describe('extractive chat model, saying how', () => {
  it('follows a passage that only describes with the instruction that comes soon after it, under the next heading', async () => {
    const text = await answer('how do I do work after the response is sent?', [
      {
        title: 'Background Tasks',
        headingPath: ['Background Tasks'],
        text: '# Background Tasks\n\nThis is useful for work that happens after the response is sent.\n\n## Using `BackgroundTasks`\n\nFirst, import `BackgroundTasks` and declare a parameter of that type.',
      },
    ]);
    assert.match(
      text,
      /after the response is sent \[1\]\.\n\nFirst, import `BackgroundTasks` and declare a parameter of that type \[1\]\./,
    );
  });

  it('opens with a sentence, not with a bare list', async () => {
    const text = await answer('how do I stream server events to the browser?', [
      '* Stream server events to the browser.\n* Each event is a line.',
      'Server events reach the browser as a stream, one line per event.',
    ]);
    assert.ok(text.startsWith('Server events reach the browser as a stream'), text);
    assert.match(text, /\* Stream server events to the browser\./);
  });
});

describe('extractive chat model, broken sentences', () => {
  it('starts no passage with a paragraph that goes on with a sentence begun before a code block', async () => {
    const text = await answer('what does the relative import mean?', [
      'The relative import:\n\n```python\nfrom .dependencies import token\n```\n\nwould mean the import takes the module next to this one.\n\nA relative import starts with a dot and names the module next to this one.',
    ]);
    assert.doesNotMatch(text, /^would mean/m);
  });
});

describe('extractive chat model, context a passage needs', () => {
  it('starts a passage that leans on the paragraph before it ("But if...") with that paragraph', async () => {
    const text = await answer('should I use a task queue for heavy background jobs?', [
      {
        title: 'Background Tasks',
        text: 'If you need heavy background computation in other processes, you might benefit from bigger tools like Celery.\n\nBut if you need small background jobs in the same app, you can simply just use `BackgroundTasks`.',
      },
    ]);
    assert.ok(text.startsWith('If you need heavy background computation'), text);
    assert.match(text, /Celery \[1\]\.\n\nBut if you need small background jobs/);
  });

  it('starts a passage that names the code before it ("This setting...") with that code and the sentence introducing it', async () => {
    const text = await answer('how do I make PyPI reject uploads of an internal package?', [
      '## Preventing publish\n\nIf you have internal packages that you do not want to be published, you can mark them as private:\n\n```toml\n[project]\nclassifiers = ["Private :: Do Not Upload"]\n```\n\nThis setting makes PyPI reject your uploaded package.',
    ]);
    assert.match(
      text,
      /mark them as private \[1\]:\n\n```toml\n\[project\]\nclassifiers = \["Private :: Do Not Upload"\]\n```\n\nThis setting makes PyPI reject/,
    );
  });

  it('starts a passage whose clause has the option before it as subject ("When enabled, ...") with that option', async () => {
    const text = await answer('can the installer detect my GPU driver and pick the matching index on its own?', [
      '## Automatic selection\n\nThe installer selects the index via the `--backend=auto` argument, as in:\n\n```shell\n$ installer add torch --backend=auto\n```\n\nWhen enabled, the installer will query the installed GPU driver and pick the most compatible index.',
    ]);
    assert.match(
      text,
      /via the `--backend=auto` argument, as in \[1\]:\n\n```shell\n\$ installer add torch --backend=auto\n```\n\nWhen enabled/,
    );
  });

  it('counts the comments of the code a paragraph introduces as its words, but not the output printed under code', async () => {
    const snippets = [
      '## Key modifiers\n\nVue allows adding key modifiers for `v-on` when listening for key events:\n\n```vue-html\n<!-- only call `submit` when the `key` is `Enter` -->\n<input @keyup.enter="submit" />\n```',
      '## Search fields\n\nA search input should have a label that users can see.\n\n```vue-html\n<input type="text" name="search" />\n```',
    ];
    const text = await answer('only call my search function when the user hits Enter', snippets);
    assert.ok(text.startsWith('Vue allows adding key modifiers for `v-on` when listening for key events [1]:'), text);
    // "#>" lines are what the code prints, not what it does.
    const printed = await answer('which searches were submitted?', [
      '## Printing\n\nCall the model:\n\n```python\nprint(model)\n#> submitted searches\n```',
    ]);
    assert.equal(printed, noAnswer);
  });

  it('counts the names in the code a paragraph introduces as its words, less than its own', async () => {
    const text = await answer('how do I check that the passwords match?', [
      '## Forms\n\nForms are sent with POST.',
      '## Validation data\n\nValidated fields are in the `data` property:\n\n```python\ndef check_passwords_match(cls, value, info):\n    return value\n```',
    ]);
    assert.ok(text.startsWith('Validated fields are in the `data` property [2]:'), text);
  });

  it('quotes the rows of an introduced table that the question names, under its header', async () => {
    const text = await answer('how do I set the title and version of the API?', [
      '## Metadata\n\nYou can set the following fields of the API:\n\n| Parameter | Type | Description |\n|---|---|---|\n| `title` | `str` | The title of the API. |\n| `contact` | `dict` | Who to ask. |\n| `version` | `str` | The version of the API. |',
    ]);
    assert.match(
      text,
      /You can set the following fields of the API \[1\]:\n\n\| Parameter \| Type \| Description \|\n\|---\|---\|---\|\n\| `title` \| `str` \| The title of the API\. \|\n\| `version` \|/,
    );
    assert.doesNotMatch(text, /contact/);
  });

  it("leads a passage that opens its section with the section's title when the passage does not name it", async () => {
    const text = await answer('how do I send a file from disk as the response?', [
      {
        title: 'Custom Response',
        headingPath: ['Custom Response', '`FileResponse`'],
        text: '## `FileResponse`\n\nAsynchronously streams a file from disk as the response.',
      },
    ]);
    assert.ok(text.startsWith('**`FileResponse`**\n\nAsynchronously streams a file from disk as the response [1].'), text);
  });

  it('quotes the items of a long list its sentence introduces that the question names, not none of them', async () => {
    const filler = 'word '.repeat(60).trim();
    const text = await answer('how do I clear the cache?', [
      `If you run into caching issues, there are a few escape hatches:\n\n- To clear the cache, run \`tool cache clean\`.\n- To refresh data, pass \`--refresh\`, ${filler}.\n- To reinstall, pass \`--reinstall\`, ${filler}.\n- To clear one entry of the cache, run \`tool cache clean <name>\`, ${filler}.`,
    ]);
    assert.match(text, /escape hatches \[1\]:\n\n- To clear the cache, run `tool cache clean`\.\n- To clear one entry of the cache/);
    assert.doesNotMatch(text, /--reinstall/);
  });

  it('quotes first the items that name the most words of the question when not all of them fit', async () => {
    const filler = 'word '.repeat(50).trim();
    const text = await answer('how do I remove unused cache entries?', [
      `There are a few ways to remove entries from the cache:\n\n- \`tool cache clean\` removes all cache entries, ${filler}.\n- \`tool cache clean <name>\` removes the cache entries of one package, ${filler}.\n- \`tool cache prune\` removes the unused cache entries, ${filler}.`,
    ]);
    assert.match(
      text,
      /from the cache \[1\]:\n\n- `tool cache clean` removes all cache entries, [^\n]+\n- `tool cache prune` removes the unused cache entries/,
    );
    assert.doesNotMatch(text, /clean <name>/);
  });
  it('does not run a passage past a thematic break', async () => {
    const text = await answer('how do I await the client call?', [
      'You can await the client call with `await client.get()` like this:\n\n---\n\nUnrelated closing words.',
    ]);
    assert.doesNotMatch(text, /---|Unrelated/);
  });
});

describe('extractive chat model, more of what was retrieved', () => {
  it('quotes up to four passages that cover the question nearly as well', async () => {
    const text = await answer('how do I configure cookie max age?', [
      { title: 'A', text: 'The cookie max age says how long a cookie is kept.' },
      { title: 'B', text: 'A cookie max age of zero deletes it.' },
      { title: 'C', text: 'The cookie max age is counted in seconds.' },
      { title: 'D', text: 'Browsers cap the cookie max age at 400 days.' },
    ]);
    for (const number of [1, 2, 3, 4]) assert.match(text, new RegExp(`\\[${number}\\]`), text);
  });

  it('shows the code block of each passage, not only of the first', async () => {
    const text = await answer('how do I upgrade one package in the lockfile?', [
      {
        title: 'Dependabot',
        text: 'Dependabot updates the lockfile when you add `package-ecosystem`:\n\n```yaml\npackage-ecosystem: "uv"\n```',
      },
      {
        title: 'Locking',
        text: 'To upgrade one package in the lockfile, keeping the others:\n\n```console\n$ uv lock --upgrade-package <package>\n```',
      },
    ]);
    assert.match(text, /package-ecosystem: "uv"/);
    assert.match(text, /keeping the others \[2\]:\n\n```console\n\$ uv lock --upgrade-package <package>\n```/);
  });

  it('quotes a better passage of a page already quoted before a weaker one of another page, and both', async () => {
    const text = await answer('how do I set the cookie max age?', [
      {
        title: 'Responses',
        text: 'Set the cookie max age with `max_age` on the response.\n\n## Other\n\nA cookie max age of zero deletes it.',
      },
      { title: 'Sessions', text: 'Session cookies have no max age.' },
    ]);
    assert.ok(text.indexOf('of zero deletes') < text.indexOf('Session cookies'), text);
  });
});
