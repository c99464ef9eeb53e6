// The optional access token: kept in sessionStorage (this tab only) and read by the API client for every request.

const storageKey = 'knowledge-agent.playground.token';

function load(): string {
  try {
    return sessionStorage.getItem(storageKey) ?? '';
  } catch {
    return '';
  }
}

function save(token: string): void {
  try {
    if (token === '') sessionStorage.removeItem(storageKey);
    else sessionStorage.setItem(storageKey, token);
  } catch {
    // Storage refused (private mode): the token still works until the page is reloaded.
  }
}

export class TokenField {
  private token = load();

  constructor(
    input: HTMLInputElement,
    private readonly indicator: HTMLElement,
    onChange: () => void,
  ) {
    input.value = this.token;
    this.showState();
    // Used from the next request on; the page reloads its state once the field is left (or Enter is pressed).
    input.addEventListener('input', () => {
      this.token = input.value.trim();
      save(this.token);
      this.showState();
    });
    input.addEventListener('change', onChange);
  }

  value(): string {
    return this.token;
  }

  private showState(): void {
    this.indicator.textContent = this.token === '' ? 'not set' : 'set';
    this.indicator.dataset.state = this.token === '' ? 'empty' : 'set';
  }
}
