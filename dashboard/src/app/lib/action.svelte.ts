import { type Words, failureText } from './i18n.ts';

/** A page's calls: each clears the last error, and a failure becomes its sentence in the page's language. */
export class Action {
  error = $state('');

  constructor(private readonly words: () => Words) {}

  run = async (work: () => Promise<void>): Promise<void> => {
    this.error = '';
    try {
      await work();
    } catch (failure) {
      this.error = failureText(this.words(), failure);
    }
  };
}
