// Durations as people write them in settings and queries: "90d", "12h", "30m", "2w"; a bare number is days.

const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const durationPattern = /^(\d{1,6})\s*([mhdw]?)$/;

/** Milliseconds of a duration, or undefined when the text is not one (or is zero). */
export function parseDuration(text: string): number | undefined {
  const match = durationPattern.exec(text.trim().toLowerCase());
  if (match === null) return undefined;
  const milliseconds = Number(match[1]) * unitMs[(match[2] || 'd') as keyof typeof unitMs];
  return milliseconds > 0 ? milliseconds : undefined;
}

export const durationHelp = 'a whole number followed by m, h, d or w (minutes, hours, days, weeks), such as 90d; a bare number is days';
