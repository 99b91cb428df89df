import { instanceExamples } from "./define.ts";
import { avatarLink, CHANNEL_ID, fileLink, ME, NOW_S } from "./samples.ts";

const OWN = {
  id: CHANNEL_ID,
  name: "Loja Centro Ofertas",
  description: "Ofertas e lançamentos da Loja Centro, toda semana.",
  invite: "https://whatsapp.com/channel/0029VaK4mZr8Fkr7qT3bXy1Q",
  picture: avatarLink(CHANNEL_ID),
  preview: avatarLink(CHANNEL_ID),
  role: "owner" as const,
  subscribersCount: 1873,
  verified: false,
  muted: false,
};
const NEWS = {
  id: "120363041122334455@newsletter",
  name: "Notícias do Varejo",
  description: "O que muda no comércio, todo dia.",
  invite: "https://whatsapp.com/channel/0029Va9sR2bL6tQw5nHxYe3Z",
  picture: "https://mmg.whatsapp.net/v/t61.24694-24/458912736_1048573_n.jpg?ccb=11-4&oh=01_Q5AaIP&oe=6790A1B2",
  preview: "https://mmg.whatsapp.net/v/t61.24694-24/458912736_1048574_n.jpg?ccb=11-4&oh=01_Q5AaIQ&oe=6790A1B2",
  subscribersCount: 254_310,
  verified: true,
};
const { role: _role, muted: _muted, ...OWN_IN_SEARCH } = OWN;
const searchPage = {
  channels: [NEWS, OWN_IN_SEARCH],
  page: { startCursor: "bzA", endCursor: "bzI", hasNextPage: true, hasPreviousPage: false },
};
const unknownChannel = {
  message: "Campos inválidos.",
  details: { channelId: "use <id>@newsletter, o código de convite ou o link do convite" },
};
const done = { success: true as const };

/** Spec 4.6 channels (routers/channels.ts; test/e2e/channels.test.ts, channels-directory.test.ts). */
export const channelsExamples = instanceExamples({
  channelsList: {
    query: { role: "owner" },
    errors: {
      validation_error: { message: "Campos inválidos.", details: { role: "role: owner, admin, subscriber ou guest" } },
    },
    response: [OWN],
  },
  channelsCreate: {
    body: {
      name: "Loja Centro Ofertas",
      description: "Ofertas e lançamentos da Loja Centro, toda semana.",
      picture: { url: "https://cdn.lojacentro.com.br/marca/logo-640.png" },
    },
    response: { ...OWN, subscribersCount: 0 },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { picture: "a imagem do canal deve ser JPEG ou PNG (recebido image/gif)" },
      },
    },
  },
  channelsSearchByView: {
    body: { view: "RECOMMENDED", categories: ["BUSINESS"], countries: ["BR"], limit: 2, startCursor: "" },
    response: searchPage,
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { startCursor: 'cursor inválido: use "" ou o endCursor da página anterior' },
      },
    },
  },
  channelsSearchByText: {
    body: { text: "ofertas", categories: [], limit: 2, startCursor: "" },
    response: {
      ...searchPage,
      channels: [OWN_IN_SEARCH],
      page: { ...searchPage.page, endCursor: "bzE", hasNextPage: false },
    },
  },
  channelsSearchViews: {
    response: [
      { name: "Recomendados", value: "RECOMMENDED" },
      { name: "Em alta", value: "TRENDING" },
      { name: "Populares", value: "POPULAR" },
      { name: "Novos", value: "NEW" },
    ],
  },
  channelsSearchCountries: {
    response: [
      { name: "Brasil", code: "BR" },
      { name: "Portugal", code: "PT" },
      { name: "Argentina", code: "AR" },
    ],
  },
  channelsSearchCategories: {
    response: [
      { name: "Entretenimento", value: "ENTERTAINMENT" },
      { name: "Esportes", value: "SPORTS" },
      { name: "Notícias", value: "NEWS" },
      { name: "Negócios", value: "BUSINESS" },
    ],
  },
  channelsGet: {
    summary: "A channel this account does not follow, by its invite code",
    path: { channelId: "0029Va9sR2bL6tQw5nHxYe3Z" },
    response: { ...NEWS, role: "guest" },
    errors: { validation_error: unknownChannel },
  },
  channelsPreview: {
    query: { downloadMedia: true, limit: 2 },
    response: [
      {
        message: {
          id: `true_${CHANNEL_ID}_3EB0D8A2F61C4B97E305`,
          chatId: CHANNEL_ID,
          from: ME.id,
          to: CHANNEL_ID,
          author: null,
          participant: null,
          body: "Tênis de corrida com 30% de desconto só hoje!",
          type: "image",
          fromMe: true,
          hasMedia: true,
          ack: 1,
          ackName: "SERVER",
          timestamp: NOW_S - 3_600,
          source: null,
          vCards: [],
          mediaUrl: fileLink(`true_${CHANNEL_ID}_3EB0D8A2F61C4B97E305`, "jpg"),
          media: {
            url: fileLink(`true_${CHANNEL_ID}_3EB0D8A2F61C4B97E305`, "jpg"),
            mimetype: "image/jpeg",
            filename: null,
            error: null,
          },
          location: null,
          replyTo: null,
          serverId: "142",
          _data: null,
        },
        reactions: { "❤️": 37, "🔥": 12 },
        viewCount: 1204,
      },
      {
        message: {
          id: `true_${CHANNEL_ID}_3EB07C19E2B54A08D6F1`,
          chatId: CHANNEL_ID,
          from: ME.id,
          to: CHANNEL_ID,
          author: null,
          participant: null,
          body: "Bom dia! Abrimos hoje às 9h.",
          type: "text",
          fromMe: true,
          hasMedia: false,
          ack: 1,
          ackName: "SERVER",
          timestamp: NOW_S - 86_400,
          source: null,
          vCards: [],
          mediaUrl: null,
          media: null,
          location: null,
          replyTo: null,
          serverId: "141",
          _data: null,
        },
        reactions: { "👍": 21 },
        viewCount: 1650,
      },
    ],
    errors: { validation_error: unknownChannel },
  },
  channelsFollow: { path: { channelId: NEWS.id }, response: done, errors: { validation_error: unknownChannel } },
  channelsUnfollow: { path: { channelId: NEWS.id }, response: done, errors: { validation_error: unknownChannel } },
  channelsMute: { path: { channelId: NEWS.id }, response: done, errors: { validation_error: unknownChannel } },
  channelsUnmute: { path: { channelId: NEWS.id }, response: done, errors: { validation_error: unknownChannel } },
});
