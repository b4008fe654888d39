// Makes a forked Node child look like an Electron utility process to the code it runs:
// process.parentPort (postMessage, and 'message' events carrying {data}) over Node's IPC, which
// is then hidden (process.send), so the code cannot fall back to it unnoticed.
const send = process.send.bind(process);
const listeners = [];
process.on('message', (data) => {
  for (const listener of listeners) listener({ data });
});
process.parentPort = {
  postMessage: (message) => send(message),
  on: (event, listener) => {
    if (event === 'message') listeners.push(listener);
  },
};
process.send = undefined;
