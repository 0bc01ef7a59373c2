// The console's entry: resume this tab's login, then render.
import { render } from 'preact';
import { resumeLogin } from './api';
import { App } from './app';
import './style.css';

void resumeLogin().finally(() => render(<App />, document.getElementById('app')!));
