// The device's one error class: a message dtrace(1) prints after "dtrace: ", and the verifier's log.

export class DeviceError extends Error {
  constructor(message: string, readonly log?: string) {
    super(message);
  }
}
