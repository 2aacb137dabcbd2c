/** Dollars as answered and stored: to the millionth, without float dust. */
export const roundUsd = (usd: number) => Math.round(usd * 1e6) / 1e6;
