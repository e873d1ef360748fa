/** Whether this process accepts new work: false before it listens and once it starts draining. */
export const lifecycle = { ready: false };
